import type { RemoteFile, RemoteFolder } from '../connector';
import { mapLimited } from '../map-limited';
import { gitFileChecksums, sortedEntries, type FileEntry, type GitDatabase } from './git-database';
import { locate } from './locate';
import type { GitHubSession } from './session';

/** How many blobs of an LFS pointer's size a walk reads at once, to tell pointers from content. */
const RESOLVE_CONCURRENCY = 8;

/**
 * Everything below a resource, depth first: one tree fetched per folder (following each subtree's `url`), so
 * only one listing per level is held; each folder's files come before its subfolders.
 */
export async function* walk({ api }: GitHubSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const { database, path, entry, treeUrl } = await locate(api, id);
  if (entry?.kind === 'file') yield* await remoteFiles(database, [entry], '', path.slice(0, -1).join('/'));
  else yield* walkTree(database, treeUrl, entry?.name ?? database.repository.name, path.join('/'), id);
}

async function* walkTree(
  database: GitDatabase,
  treeUrl: string | null,
  path: string,
  /** the folder's path in the repository ('' for its root) */
  repositoryPath: string,
  id: string,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  yield { kind: 'folder', path };
  // an empty repository has no tree yet
  if (treeUrl === null) return;
  const { folders, files } = sortedEntries(await database.listing(treeUrl, id));
  yield* await remoteFiles(database, files, `${path}/`, repositoryPath);
  for (const folder of folders)
    yield* walkTree(database, folder.url, `${path}/${folder.name}`, join(repositoryPath, folder.name), id);
}

function join(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/** A folder's files as a walk yields them, each blob that may be an LFS pointer read to find out. */
async function remoteFiles(
  database: GitDatabase,
  entries: readonly FileEntry[],
  prefix: string,
  repositoryPath: string,
): Promise<RemoteFile[]> {
  const files = await mapLimited(entries, RESOLVE_CONCURRENCY, (entry) => database.resolve(entry));
  return files.map((file) => {
    const checksums = gitFileChecksums(file);
    return {
      kind: 'file',
      path: `${prefix}${file.entry.name}`,
      size: file.size,
      sourceHashes: async (wanted): Promise<Record<string, string>> =>
        Object.fromEntries(Object.entries(checksums).filter(([algorithm]) => wanted.includes(algorithm))),
      open: () => database.open(file, join(repositoryPath, file.entry.name)),
    };
  });
}
