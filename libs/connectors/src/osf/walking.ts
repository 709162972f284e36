import type { RemoteFile, RemoteFolder } from '../connector';
import type { OsfApi } from './api';
import { fileUrl, isFolder, knownHashes, related, OSF_STORAGE, type OsfFile, type OsfNode } from './entities';
import { locate, storagesOf } from './locate';
import type { OsfSession } from './session';
import { titleSegment } from '../upstream-values';

type Entry = RemoteFolder | RemoteFile;

/**
 * Every folder and file of a resource, depth first, each level's files before its folders, in OSF's order
 * (by path). A project holds its osfstorage files directly, then a folder per other storage provider, then
 * a folder per component (laid out the same way), so that a tree uploaded from elsewhere comes back as it was.
 */
export async function* walk({ api }: OsfSession, id: string): AsyncGenerator<Entry> {
  const located = await locate(api, id);
  if (located.kind === 'node') {
    yield* walkNode(api, located.node, titleSegment(located.node.attributes.title));
  } else if (located.kind === 'storage') {
    const path = located.storage.attributes.name;
    yield { kind: 'folder', path };
    yield* walkFolder(api, related(located.storage, 'files'), path);
  } else if (isFolder(located.file)) {
    const path = located.file.attributes.name;
    yield { kind: 'folder', path };
    yield* walkFolder(api, related(located.file, 'files'), path);
  } else {
    yield remoteFile(api, located.file, located.file.attributes.name);
  }
}

async function* walkNode(api: OsfApi, node: OsfNode, path: string): AsyncGenerator<Entry> {
  yield { kind: 'folder', path };
  for (const storage of await storagesOf(api, node)) {
    if (storage.attributes.provider === OSF_STORAGE) {
      yield* walkFolder(api, related(storage, 'files'), path);
    } else {
      const storagePath = `${path}/${storage.attributes.name}`;
      yield { kind: 'folder', path: storagePath };
      yield* walkFolder(api, related(storage, 'files'), storagePath);
    }
  }
  for await (const component of api.all<OsfNode>(related(node, 'children'))) {
    yield* walkNode(api, component, `${path}/${titleSegment(component.attributes.title)}`);
  }
}

/**
 * A folder's files as they are listed (its `files` relationship), then each subfolder; only the subfolders'
 * listing links are held meanwhile.
 */
async function* walkFolder(api: OsfApi, filesUrl: string, path: string): AsyncGenerator<Entry> {
  const subfolders: { path: string; filesUrl: string }[] = [];
  for await (const entry of api.all<OsfFile>(filesUrl)) {
    const entryPath = `${path}/${entry.attributes.name}`;
    if (isFolder(entry)) subfolders.push({ path: entryPath, filesUrl: related(entry, 'files') });
    else yield remoteFile(api, entry, entryPath);
  }
  for (const subfolder of subfolders) {
    yield { kind: 'folder', path: subfolder.path };
    yield* walkFolder(api, subfolder.filesUrl, subfolder.path);
  }
}

/** A walked file: its bytes from WaterButler, its checksums as OSF keeps them. */
function remoteFile(api: OsfApi, file: OsfFile, path: string): RemoteFile {
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
    open: () => api.files.download(fileUrl(file)),
  };
}
