import type { RemoteFile, RemoteFolder } from '../connector';
import type { OsfApi } from './api';
import { isFolder, link, related, OSF_STORAGE, type OsfFile, type OsfNode } from './entities';
import { locate, storagesOf } from './locate';
import { knownHashes } from './resources';
import type { WaterButler } from './waterbutler';

type Entry = RemoteFolder | RemoteFile;

/**
 * Every folder and file of a resource, depth first, each level's files before its folders, in OSF's order
 * (by path). A project holds its osfstorage files directly, then a folder per other storage provider, then
 * a folder per component (laid out the same way), so that a tree uploaded from elsewhere comes back as it was.
 */
export async function* walk(api: OsfApi, files: WaterButler, id: string): AsyncGenerator<Entry> {
  const located = await locate(api, id);
  if (located.kind === 'node') {
    yield* walkNode(api, files, located.node, pathSegment(located.node.attributes.title));
  } else if (located.kind === 'storage') {
    const path = located.storage.attributes.name;
    yield { kind: 'folder', path };
    yield* walkFolder(api, files, located.storage, path);
  } else if (isFolder(located.file)) {
    const path = located.file.attributes.name;
    yield { kind: 'folder', path };
    yield* walkFolder(api, files, located.file, path);
  } else {
    yield remoteFile(files, located.file, located.file.attributes.name);
  }
}

async function* walkNode(
  api: OsfApi,
  files: WaterButler,
  node: OsfNode,
  path: string,
): AsyncGenerator<Entry> {
  yield { kind: 'folder', path };
  for (const storage of await storagesOf(api, node)) {
    if (storage.attributes.provider === OSF_STORAGE) {
      yield* walkFolder(api, files, storage, path);
    } else {
      const storagePath = `${path}/${storage.attributes.name}`;
      yield { kind: 'folder', path: storagePath };
      yield* walkFolder(api, files, storage, storagePath);
    }
  }
  for await (const component of api.all<OsfNode>(related(node, 'children'))) {
    yield* walkNode(api, files, component, `${path}/${pathSegment(component.attributes.title)}`);
  }
}

/** A folder's files as they are listed, then each subfolder; only the subfolders' links are held meanwhile. */
async function* walkFolder(
  api: OsfApi,
  files: WaterButler,
  folder: OsfFile,
  path: string,
): AsyncGenerator<Entry> {
  const subfolders: { path: string; folder: OsfFile }[] = [];
  for await (const entry of api.all<OsfFile>(related(folder, 'files'))) {
    const entryPath = `${path}/${entry.attributes.name}`;
    if (isFolder(entry)) subfolders.push({ path: entryPath, folder: entry });
    else yield remoteFile(files, entry, entryPath);
  }
  for (const subfolder of subfolders) {
    yield { kind: 'folder', path: subfolder.path };
    yield* walkFolder(api, files, subfolder.folder, subfolder.path);
  }
}

/** A walked file: its bytes from WaterButler, its checksums as OSF keeps them. */
function remoteFile(files: WaterButler, file: OsfFile, path: string): RemoteFile {
  return {
    kind: 'file',
    path,
    size: file.attributes.size ?? 0,
    sourceHashes: async (wanted) => {
      const kept: Record<string, string | undefined> = knownHashes(file);
      return Object.fromEntries(
        wanted.flatMap((algorithm) => (kept[algorithm] ? [[algorithm, kept[algorithm]]] : [])),
      );
    },
    open: () => files.download(fileUrl(file)),
  };
}

/**
 * A file's WaterButler URL, where GET downloads it and PUT stores a new version: OSF gives it as the file's
 * `upload` link. Its `download` link leads to the OSF website instead (osf.io/download/<id>/), an origin that
 * is not trusted with the token and that sends requests without one to the login page.
 */
export function fileUrl(file: OsfFile): string {
  return link(file, 'upload');
}

/** A node's title as one path segment: OSF titles may hold slashes, names in a walk may not. */
export function pathSegment(title: string): string {
  return title.replace(/\//g, '_');
}
