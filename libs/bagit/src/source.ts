import type { ZipArchive } from '@app/archive';
import { openRegularFile, readLocalFile, ServiceError } from '@app/common';
import { hashFile } from '@app/fixity';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

export interface BagEntry {
  /** relative to the bag's root, '/'-separated, no trailing '/' */
  path: string;
  size: number;
  isDirectory: boolean;
}

/** Where a bag's files are read from: a directory on disk or a folder inside an uploaded zip. */
export interface BagSource {
  list(): Promise<BagEntry[]>;
  /** The file's bytes as a stream, never read whole. */
  open(path: string): Promise<Readable>;
  /** A tag file's bytes, whole; refused when it is larger than any real tag file would be. */
  readTagFile(path: string): Promise<Buffer>;
  /**
   * The file's digests, read and hashed where it lies on a hashing thread (not streamed through the caller's);
   * null when the bytes can only be streamed (a compressed zip entry). A source without it is always streamed.
   */
  hashInPlace?(path: string, algorithms: readonly string[]): Promise<Record<string, string> | null>;
}

/** Manifests of 100 000 files with long names stay well below this. */
export const MAX_TAG_FILE_BYTES = 128 << 20;

const CHUNK_BYTES = 1 << 20;

/** A bag on disk. Links are never followed: one inside the bag is refused. */
export function directoryBagSource(root: string): BagSource {
  const open = async (path: string): Promise<Readable> => {
    // the listing refused links and FIFOs; openRegularFile refuses one swapped in since
    const { fd } = await openRegularFile(join(root, path));
    return readLocalFile('', { fd, highWaterMark: CHUNK_BYTES });
  };
  return {
    list: () => listDirectory(root, ''),
    open,
    readTagFile: async (path) => readCapped(await open(path), path),
  };
}

async function listDirectory(root: string, prefix: string, entries: BagEntry[] = []): Promise<BagEntry[]> {
  for (const dirent of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix + dirent.name;
    if (dirent.isSymbolicLink())
      throw ServiceError.badRequest(`${path} is a symbolic link; a bag must not contain links.`);
    if (dirent.isDirectory()) {
      entries.push({ path, size: 0, isDirectory: true });
      await listDirectory(root, `${path}/`, entries);
    } else if (dirent.isFile()) {
      entries.push({ path, size: (await lstat(join(root, path))).size, isDirectory: false });
    } else {
      throw ServiceError.badRequest(
        `${path} is neither a regular file nor a directory; a bag holds only files.`,
      );
    }
  }
  return entries;
}

/** The bag whose root is the folder `rootPrefix` (e.g. `my_bag/`, as findBagRoot gives it) of an opened zip. */
export function zipBagSource(zip: ZipArchive, rootPrefix: string): BagSource {
  const open = (path: string) => zip.openEntry(rootPrefix + path);
  return {
    list: async () =>
      zip.entries
        .filter((entry) => entry.path.startsWith(rootPrefix))
        // a literal rather than a spread, which V8 would give a hidden class of its own per entry
        .map((entry) => ({
          path: entry.path.slice(rootPrefix.length),
          size: entry.size,
          isDirectory: entry.isDirectory,
        })),
    open,
    readTagFile: async (path) => readCapped(await open(path), path),
    hashInPlace: async (path, algorithms) => {
      const data = await zip.storedData(rootPrefix + path);
      return data && hashFile(data.file, algorithms, { start: data.start, length: data.length });
    },
  };
}

async function readCapped(stream: Readable, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += (chunk as Buffer).length;
    // leaving the loop by a throw destroys the stream
    if (length > MAX_TAG_FILE_BYTES)
      throw ServiceError.badRequest(`${path} is over ${MAX_TAG_FILE_BYTES} bytes, too large for a tag file.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
