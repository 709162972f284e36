import { digestStream } from '@app/fixity';
import type { RemoteFile, RemoteFolder } from '../connector';
import type { WebdavApi } from './api';
import { byKindAndName, pathOf } from './detail';
import { nameOf, type ChecksumAlgorithm, type DavEntry } from './entities';
import type { WebdavSession } from './session';

const COMPUTED: readonly ChecksumAlgorithm[] = ['md5', 'sha1'];

/**
 * A walked file: its bytes by GET; its checksums those the server keeps (`oc:checksums`), and where it keeps
 * none (a plain WebDAV server, or a file uploaded without one) the first wanted one computed from its bytes.
 */
export function remoteFile(api: WebdavApi, path: string, entry: DavEntry): RemoteFile {
  const kept = Object.keys(entry.checksums).length > 0;
  return {
    kind: 'file',
    path,
    size: entry.size,
    ...(kept ? {} : { checksumsOfBytes: true as const }),
    sourceHashes: async (wanted) => {
      const found = Object.fromEntries(
        wanted.flatMap((algorithm) => {
          const value = entry.checksums[algorithm as ChecksumAlgorithm];
          return value ? [[algorithm, value]] : [];
        }),
      );
      if (Object.keys(found).length > 0) return found;
      const algorithm = wanted.find((name) => (COMPUTED as readonly string[]).includes(name));
      if (!algorithm) return {};
      return {
        [algorithm]: (await digestStream(await api.download(entry.path), [algorithm], entry.size))[algorithm],
      };
    },
    open: () => api.download(entry.path),
  };
}

/** A folder (and its files by name, then each subfolder), or a single file; one PROPFIND of Depth 1 a folder. */
export async function* walk({ api }: WebdavSession, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const [self, ...members] = await api.propfind(pathOf(id), 1, id);
  if (!self.collection) {
    yield remoteFile(api, nameOf(self), self);
    return;
  }
  yield* walkFolder(api, nameOf(self), members);
}

/** Only the subfolders' entries of each level are held while the walk goes deeper. */
async function* walkFolder(
  api: WebdavApi,
  path: string,
  members: DavEntry[],
): AsyncGenerator<RemoteFolder | RemoteFile> {
  yield { kind: 'folder', path };
  members.sort(byKindAndName);
  const folders = members.filter((entry) => entry.collection);
  for (const entry of members)
    if (!entry.collection) yield remoteFile(api, `${path}/${nameOf(entry)}`, entry);
  for (const folder of folders) {
    const [, ...inside] = await api.propfind(folder.path, 1);
    yield* walkFolder(api, `${path}/${nameOf(folder)}`, inside);
  }
}
