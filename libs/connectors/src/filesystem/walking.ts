import { copyFile } from '@app/fixity';
import { openRegularFile, readLocalFile } from '@app/common';
import type { Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { HASH_ALGORITHMS, type RemoteFile, type RemoteFolder } from '../connector';
import type { DigestCache } from './digest-cache';
import { entryNames, lstatIfPresent, readSmallFile, SMALL_FILE_BYTES } from './disk';
import { locate } from './locate';
import type { FilesystemSession } from './session';

interface TreeEntry {
  /** `/`-separated, from `base` */
  path: string;
  absolute: string;
  /** null for a folder */
  stats: Stats | null;
}

/** A folder and what it holds, or a single file; checksums are computed from the bytes (and cached). */
export async function* walk(
  session: FilesystemSession,
  id: string,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  const { relativePath, absolute, stats } = await locate(session, id);
  const title = basename(relativePath);
  if (stats.isFile()) {
    yield remoteFile(session.digests, title, absolute, stats);
    return;
  }
  for await (const entry of walkTree(absolute, title)) {
    yield entry.stats
      ? remoteFile(session.digests, entry.path, entry.absolute, entry.stats)
      : { kind: 'folder', path: entry.path };
  }
}

/**
 * Folders and regular files below `dir`, depth first, each folder before its content and each level by name,
 * so downloads are reproducible. Only one directory's names are held at a time per level.
 */
async function* walkTree(dir: string, base: string): AsyncGenerator<TreeEntry> {
  yield { path: base, absolute: dir, stats: null };
  const { directories, files } = await entryNames(dir);
  for (const name of files) {
    const stats = lstatIfPresent(join(dir, name));
    if (stats?.isFile()) yield { path: `${base}/${name}`, absolute: join(dir, name), stats };
  }
  for (const name of directories) yield* walkTree(join(dir, name), `${base}/${name}`);
}

function remoteFile(digests: DigestCache, path: string, absolute: string, stats: Stats): RemoteFile {
  return {
    kind: 'file',
    path,
    size: stats.size,
    checksumsOfBytes: true,
    sourceHashes: async (wanted) => {
      // only the first algorithm it keeps: the file is read for it alone
      const algorithm = wanted.find((name) => (HASH_ALGORITHMS as readonly string[]).includes(name));
      if (!algorithm) return {};
      const hashes = await digests.get(absolute, stats, [algorithm]);
      return { [algorithm]: hashes[algorithm] };
    },
    open: async (): Promise<Readable> => {
      if (stats.size <= SMALL_FILE_BYTES) return readSmallFile(absolute, stats.size);
      // a file swapped for a symlink or a FIFO since the walk is refused (openRegularFile). A plain fd stream
      // reads faster than a FileHandle's, whose reads go through promises.
      const { fd } = await openRegularFile(absolute);
      // reading up to the size walked, not to EOF, spares a buffer per file for the read that finds EOF
      return readLocalFile('', {
        fd,
        highWaterMark: 1 << 20,
        start: 0,
        end: Math.max(0, stats.size - 1),
      });
    },
    // as open(): a file swapped for a symlink since the walk is refused (copyFile); up to the size walked
    copyInto: (target, algorithms) => copyFile(absolute, stats.size, target, algorithms),
  };
}
