import type { DetailOptions, ResourceDetail, ResourceSummary } from '../connector';
import { entryNames, entryPath, forEachEntry, lstatIfPresent } from './disk';
import { encodeId } from './ids';
import { locate, toConnectorError } from './locate';
import type { FilesystemSession } from './session';

export function summarize(relativePath: string, isDirectory: boolean): ResourceSummary {
  // the last `/` parts the path into its container's and its name, without an array of all its segments
  // (a listing summarizes every project on its page)
  const lastSlash = relativePath.lastIndexOf('/');
  return {
    kind: isDirectory ? 'container' : 'item',
    kindName: !isDirectory ? 'file' : lastSlash < 0 ? 'project' : 'folder',
    id: encodeId(relativePath),
    container: lastSlash < 0 ? null : encodeId(relativePath.slice(0, lastSlash)),
    title: relativePath.slice(lastSlash + 1),
  };
}

/** A project, folder or file with its dates; a file with its checksums, a folder with its children. */
export async function getResource(
  session: FilesystemSession,
  id: string,
  options: DetailOptions = {},
): Promise<ResourceDetail> {
  const { relativePath, absolute, stats } = await locate(session, id);
  const { kind, kindName, title } = summarize(relativePath, stats.isDirectory());
  const resource = {
    kind,
    kindName,
    id,
    title,
    // Some filesystems do not record a birth time and report 0.
    dateCreated: (stats.birthtimeMs > 0 ? stats.birthtime : stats.ctime).toISOString(),
    dateModified: stats.mtime.toISOString(),
  };
  const path = `/${relativePath}`;
  // a summary leaves out what costs reading the file or walking the folder
  if (options.summary)
    return { ...resource, hashes: { md5: null, sha256: null }, extra: { path }, children: [] };
  try {
    if (stats.isFile()) {
      const { md5, sha256 } = await session.digests.get(absolute, stats);
      return {
        ...resource,
        hashes: { md5, sha256 },
        extra: { path, size: stats.size, provider: 'filesystem' },
        children: [],
      };
    }
    const [{ size, fileCount }, children] = await Promise.all([
      measureTree(absolute),
      listChildren(absolute, relativePath),
    ]);
    return {
      ...resource,
      hashes: { md5: null, sha256: null },
      extra: { path, size, file_count: fileCount, provider: 'filesystem' },
      children,
    };
  } catch (error) {
    throw toConnectorError(error, id);
  }
}

/** Direct children of a container: directories then files, each by name; links and reserved names left out. */
async function listChildren(dir: string, relativePath: string): Promise<ResourceSummary[]> {
  const { directories, files } = await entryNames(dir);
  return [
    ...directories.map((name) => summarize(`${relativePath}/${name}`, true)),
    ...files.map((name) => summarize(`${relativePath}/${name}`, false)),
  ];
}

/** Total bytes and number of the regular files below a directory, walking it level by level. */
async function measureTree(dir: string): Promise<{ size: number; fileCount: number }> {
  let size = 0;
  let fileCount = 0;
  const pending = [dir];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    const parent = current;
    try {
      await forEachEntry(parent, (entry) => {
        const path = entryPath(parent, entry.name);
        if (entry.isDirectory()) pending.push(path);
        if (!entry.isFile()) return;
        const stats = lstatIfPresent(path);
        if (!stats?.isFile()) return;
        size += stats.size;
        fileCount++;
      });
    } catch (error) {
      // A folder removed during the walk simply no longer counts.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir) throw error;
    }
  }
  return { size, fileCount };
}
