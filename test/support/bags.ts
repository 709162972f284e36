import archiver from 'archiver';
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';

/** A bag's files by path from its root: 'bagit.txt', 'manifest-sha256.txt', 'data/a.txt'... */
export type BagFiles = Map<string, Buffer>;

export interface MakeBagZipOptions {
  /** payload files by path relative to data/ */
  files: Record<string, string | Buffer>;
  /** the bag's folder in the zip */
  root?: string;
  /** payload and tag manifest algorithms */
  algorithms?: string[];
  /**
   * Edits the bag before it is zipped: corrupt a checksum, drop or add a file, drop bagit.txt... The tag
   * manifests are written afterwards, over the tag files then present, so they don't add errors of their own.
   */
  mutate?: (bag: BagFiles) => void;
  /** entries beside the bag, e.g. the __MACOSX/ folder macOS adds */
  extraEntries?: ZipSpec[];
  /** deflate the bag's entries rather than store them */
  deflate?: boolean;
}

/** A BagIt 1.0 bag in a zip, made independently of the code under test (for upload tests too). */
export async function makeBagZip({
  files,
  root = 'bag',
  algorithms = ['sha256'],
  mutate,
  extraEntries = [],
  deflate = false,
}: MakeBagZipOptions): Promise<Buffer> {
  const bag: BagFiles = new Map(
    Object.entries(files).map(([path, content]) => [`data/${path}`, Buffer.from(content)]),
  );
  const payload = [...bag.keys()];
  const bytes = [...bag.values()].reduce((total, content) => total + content.length, 0);
  bag.set('bagit.txt', Buffer.from('BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n'));
  bag.set(
    'bag-info.txt',
    Buffer.from(`Bagging-Date: 2024-01-01\nPayload-Oxum: ${bytes}.${payload.length}\n`),
  );
  for (const algorithm of algorithms) bag.set(`manifest-${algorithm}.txt`, manifest(bag, payload, algorithm));
  mutate?.(bag);
  const tagFiles = [...bag.keys()].filter((path) => !path.startsWith('data/'));
  for (const algorithm of algorithms)
    bag.set(`tagmanifest-${algorithm}.txt`, manifest(bag, tagFiles, algorithm));
  return zipOf([
    ...[...bag].map(([path, content]) => ({ name: `${root}/${path}`, content, deflate })),
    ...extraEntries,
  ]);
}

/** Manifest lines with paths percent-encoded exactly as RFC 8493 says: every '%', CR and LF. */
function manifest(bag: BagFiles, paths: string[], algorithm: string): Buffer {
  const encoded = (path: string) => path.replace(/%/g, '%25').replace(/\n/g, '%0A').replace(/\r/g, '%0D');
  const digest = (path: string) =>
    createHash(algorithm)
      .update(bag.get(path) ?? '')
      .digest('hex');
  return Buffer.from(paths.map((path) => `${digest(path)}  ${encoded(path)}\n`).join(''));
}

/** Rewrites a text file of the bag, for `mutate`. */
export function editText(bag: BagFiles, path: string, edit: (text: string) => string): void {
  bag.set(path, Buffer.from(edit(bag.get(path)?.toString('utf8') ?? '')));
}

export interface ZipSpec {
  name: string;
  content?: string | Buffer;
  /** deflate (level 9) rather than store */
  deflate?: boolean;
  /** a symbolic link to this target instead of a file */
  symlinkTo?: string;
}

/** A zip holding exactly these entries, written by archiver. */
export async function zipOf(entries: ZipSpec[], options: archiver.ZipOptions = {}): Promise<Buffer> {
  const archive = archiver('zip', { zlib: { level: 9 }, ...options });
  const bytes = buffer(archive);
  for (const { name, content = '', deflate = false, symlinkTo } of entries) {
    if (symlinkTo !== undefined) archive.symlink(name, symlinkTo);
    else archive.append(Buffer.from(content), { name, store: !deflate });
  }
  await archive.finalize();
  return bytes;
}

export interface CentralDirectoryPatch {
  /** a replacement name of the same byte length (archiver refuses to write unsafe names) */
  name?: string;
  externalAttributes?: number;
  generalPurposeFlags?: number;
  uncompressedSize?: number;
}

/**
 * Edits the central directory record of the index-th entry: what a reader sees first, and all that the zip
 * reader under test checks before refusing. Assumes no zip comment and no ZIP64 records.
 */
export function patchCentralDirectory(zip: Buffer, index: number, patch: CentralDirectoryPatch): Buffer {
  const patched = Buffer.from(zip);
  const endOfCentralDirectory = patched.length - 22;
  let record = patched.readUInt32LE(endOfCentralDirectory + 16);
  for (let i = 0; i < index; i++)
    record +=
      46 +
      patched.readUInt16LE(record + 28) +
      patched.readUInt16LE(record + 30) +
      patched.readUInt16LE(record + 32);
  if (patch.generalPurposeFlags !== undefined) patched.writeUInt16LE(patch.generalPurposeFlags, record + 8);
  if (patch.uncompressedSize !== undefined) patched.writeUInt32LE(patch.uncompressedSize, record + 24);
  if (patch.externalAttributes !== undefined)
    patched.writeUInt32LE(patch.externalAttributes >>> 0, record + 38);
  if (patch.name !== undefined) {
    const name = Buffer.from(patch.name);
    if (name.length !== patched.readUInt16LE(record + 28))
      throw new Error('a patched name must keep its length');
    name.copy(patched, record + 46);
  }
  return patched;
}
