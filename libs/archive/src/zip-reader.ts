import { countReadBuffer, ServiceError } from '@app/common';
import { close, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';
import { PassThrough, Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { defaults } from '@app/config';
import { ZipLimits } from './archive.settings';
import { unsafePathReason } from './safe-path';

export const DEFAULT_ZIP_LIMITS: ZipLimits = defaults(ZipLimits);

/** Below this many decompressed bytes a high ratio is harmless (say, a text file of spaces), so it is allowed. */
export const RATIO_FLOOR_BYTES = 1 << 20;

export interface ZipEntry {
  /** '/'-separated, without the trailing '/' that marks a directory entry */
  path: string;
  /** decompressed size, as the central directory declares it (and as reading enforces) */
  size: number;
  compressedSize: number;
  isDirectory: boolean;
}

export interface ZipArchive {
  readonly entries: readonly ZipEntry[];
  /**
   * The decompressed bytes of a file entry, streamed. The stream fails with a ServiceError(400) when the
   * entry's data is damaged or holds more or fewer bytes than declared.
   */
  openEntry(path: string): Promise<Readable>;
  /**
   * Where a stored (uncompressed) file entry's bytes lie in the zip file, for reading them in place; null for
   * a compressed entry, whose bytes only openEntry gives. A ServiceError(400) when the entry is damaged.
   */
  storedData(path: string): Promise<{ file: string; start: number; length: number } | null>;
  close(): void;
}

const FILE_TYPE_MASK = 0o170000;
const REGULAR_FILE = 0o100000;
const DIRECTORY = 0o040000;
const SYMBOLIC_LINK = 0o120000;
const STORED = 0;
const DEFLATED = 8;

/**
 * Opens an uploaded zip through its central directory and refuses it, before any entry's data is read, when
 * it is not a zip, is empty, or holds an entry that is unsafe (a path that escapes, a link, a device),
 * encrypted, duplicated, or beyond the limits (count, total size, or a zip bomb's compression ratio).
 */
export async function openZip(path: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipArchive> {
  // a plain descriptor, not a FileHandle: the reader closes it, and a FileHandle would close it again when collected
  const fd = await promisify(open)(path, 'r');
  const closeFile = () => promisify(close)(fd);
  const { size } = await promisify(fstat)(fd).catch(async (error: Error) => {
    await closeFile();
    throw error;
  });
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await yauzl.fromRandomAccessReaderPromise(new ZipFileReader(fd), size, {
      autoClose: false,
      // Names are decoded and checked here, so that backslashes are refused rather than silently turned into '/'.
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch (error) {
    await closeFile();
    throw asUserError(error, () => "The file provided, 'presqt-file', is not a zip file.");
  }
  try {
    const entries = await readCentralDirectory(zipfile, limits);
    const fileEntry = (entryPath: string): IndexedEntry => {
      const indexed = entries.get(entryPath);
      if (!indexed || indexed.isDirectory) throw new Error(`The zip has no file entry ${quote(entryPath)}`);
      return indexed;
    };
    return {
      entries: [...entries.values()],
      openEntry: async (entryPath) => openEntry(zipfile, fileEntry(entryPath), entryPath),
      storedData: async (entryPath) => {
        const data = await storedDataOf(zipfile, fileEntry(entryPath), entryPath, size);
        return data && { file: path, ...data };
      },
      close: () => zipfile.close(),
    };
  } catch (error) {
    zipfile.close();
    throw asUserError(
      error,
      (message) => `The zip file is damaged or uses an unsupported feature: ${message}`,
    );
  }
}

/** How much of an entry's data is read at a time. */
const READ_CHUNK_BYTES = 1 << 20;

/**
 * yauzl's reader of the zip file (yauzl.RandomAccessReader, its documented way to supply one) reading entry
 * data in chunks of READ_CHUNK_BYTES. yauzl's own reads 16 KiB at a time, each chunk through four streams, which
 * held the check of an uploaded bag (every byte hashed before the 202) to about 100 MiB/s (bench/). yauzl
 * closes it, and so the file, once the zip and every entry stream opened from it are closed.
 */
class ZipFileReader extends yauzl.RandomAccessReader {
  constructor(private readonly fd: number) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // positional reads, so that several entry streams share the descriptor; not fs.createReadStream, whose
    // destroy() closes the descriptor it was given
    const fd = this.fd;
    let position = start;
    return new Readable({
      highWaterMark: READ_CHUNK_BYTES,
      read() {
        const length = Math.min(READ_CHUNK_BYTES, end - position);
        if (length === 0) return void this.push(null);
        const buffer = Buffer.allocUnsafe(length);
        countReadBuffer(length);
        read(fd, buffer, 0, length, position, (error, bytesRead) => {
          if (error) return this.destroy(error);
          if (bytesRead === 0) return this.destroy(new Error('unexpected end of the zip file'));
          position += bytesRead;
          this.push(bytesRead < length ? buffer.subarray(0, bytesRead) : buffer);
        });
      },
    });
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    read(this.fd, buffer, offset, length, position, (error, bytesRead) => callback(error, bytesRead));
  }

  override close(callback: (error: Error | null) => void): void {
    close(this.fd, callback);
  }
}

/**
 * An entry as kept while the zip is open: what the caller sees, and the few fields yauzl needs to read its
 * data. yauzl's own Entry (its raw name, extra fields, comment) is not kept: that costs hundreds of bytes per
 * entry, and a zip may hold 100,000.
 */
interface IndexedEntry extends ZipEntry {
  localHeaderOffset: number;
  compressionMethod: number;
  generalPurposeBitFlag: number;
}

async function readCentralDirectory(
  zipfile: yauzl.ZipFile,
  limits: ZipLimits,
): Promise<Map<string, IndexedEntry>> {
  if (zipfile.entryCount === 0) throw ServiceError.badRequest('The zip file is empty: it holds no entries.');
  if (zipfile.entryCount > limits.maxEntries)
    throw ServiceError.badRequest(
      `The zip holds ${zipfile.entryCount} entries, over the limit of ${limits.maxEntries}.`,
    );
  const entries = new Map<string, IndexedEntry>();
  let totalBytes = 0;
  for await (const entry of zipfile.eachEntry()) {
    const info = checkEntry(entry, limits);
    if (entries.has(info.path))
      throw ServiceError.badRequest(`The zip entry ${quote(info.path)} appears twice.`);
    entries.set(info.path, info);
    totalBytes += info.size;
    if (totalBytes > limits.maxTotalBytes)
      throw ServiceError.badRequest(
        `The zip's entries add up to more than ${limits.maxTotalBytes} bytes once decompressed, over the limit.`,
      );
  }
  if (isBomb(totalBytes, zipfile.fileSize, limits))
    throw ServiceError.badRequest(
      `The zip expands from ${zipfile.fileSize} to ${totalBytes} bytes, a ratio over ${limits.maxRatio}:1 ` +
        'as in a zip bomb; such zips are refused.',
    );
  return entries;
}

function checkEntry(entry: yauzl.Entry, limits: ZipLimits): IndexedEntry {
  const name = entryName(entry);
  const refuse = (rule: string) =>
    ServiceError.badRequest(`The zip entry ${quote(name)} ${rule}; such zips are refused.`);
  const unsafe = unsafePathReason(name);
  if (unsafe) throw refuse(unsafe);
  // The high 16 bits hold a Unix mode when the zip was made on a Unix-like system; 0 otherwise.
  const fileType = (entry.externalFileAttributes >>> 16) & FILE_TYPE_MASK;
  if (fileType === SYMBOLIC_LINK) throw refuse('is a symbolic link');
  if (fileType !== 0 && fileType !== REGULAR_FILE && fileType !== DIRECTORY)
    throw refuse('is neither a regular file nor a directory');
  if (entry.isEncrypted()) throw refuse('is encrypted');
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED)
    throw refuse(
      `uses compression method ${entry.compressionMethod}, where only stored and deflated can be read`,
    );
  if (isBomb(entry.uncompressedSize, entry.compressedSize, limits))
    throw refuse(
      `expands from ${entry.compressedSize} to ${entry.uncompressedSize} bytes, a ratio over ${limits.maxRatio}:1 as in a zip bomb`,
    );
  const isDirectory = name.endsWith('/');
  // one literal, not a spread of a ZipEntry: V8 gives each object made by spreading in a loop its own hidden
  // class, 250 bytes more per entry
  return {
    path: isDirectory ? name.slice(0, -1) : name,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    isDirectory,
    localHeaderOffset: entry.relativeOffsetOfLocalHeader,
    compressionMethod: entry.compressionMethod,
    generalPurposeBitFlag: entry.generalPurposeBitFlag,
  };
}

const UTF8_NAME_FLAG = 0x800;
const UNICODE_PATH_FIELD = 0x7075;

function entryName(entry: yauzl.Entry): string {
  // yauzl reads the bytes below 0x20 of a name not flagged UTF-8 as CP437 glyphs ('\n' as '◙'); Python and
  // Info-ZIP read them as the control characters they are, which a BagIt name may hold (archiver flags a name
  // UTF-8 only when it is not ASCII).
  const plainAscii =
    !(entry.generalPurposeBitFlag & UTF8_NAME_FLAG) &&
    !entry.extraFields.some((field) => field.id === UNICODE_PATH_FIELD) &&
    entry.fileNameRaw.every((byte) => byte < 0x80);
  if (plainAscii) return entry.fileNameRaw.toString('ascii');
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
}

function isBomb(size: number, compressedSize: number, limits: ZipLimits): boolean {
  return size > RATIO_FLOOR_BYTES && size / Math.max(compressedSize, 1) > limits.maxRatio;
}

async function openEntry(zipfile: yauzl.ZipFile, indexed: IndexedEntry, path: string): Promise<Readable> {
  let source: Readable;
  try {
    source = await zipfile.openReadStreamPromise(yauzlEntry(indexed));
  } catch (error) {
    throw entryDamaged(path, error);
  }
  // A relay rather than yauzl's own stream, so that its format errors reach the reader as 400s.
  const relay = new PassThrough();
  source.on('error', (error) => relay.destroy(entryDamaged(path, error)));
  relay.on('close', () => source.destroy());
  return source.pipe(relay);
}

/** Where a stored file entry's data lies in the zip (from its local header); null for a compressed one. */
async function storedDataOf(
  zipfile: yauzl.ZipFile,
  indexed: IndexedEntry,
  path: string,
  zipSize: number,
): Promise<{ start: number; length: number } | null> {
  if (indexed.compressionMethod !== STORED) return null;
  // a stored entry's data is its bytes: yauzl refused, at open, one whose two sizes differ
  let start: number;
  try {
    ({ fileDataStart: start } = await zipfile.readLocalFileHeaderPromise(yauzlEntry(indexed), {
      minimal: true,
    }));
  } catch (error) {
    throw entryDamaged(path, error);
  }
  if (start + indexed.size > zipSize)
    throw entryDamaged(path, new Error('its data runs past the end of the zip'));
  return { start, length: indexed.size };
}

/** What yauzl reads an entry's data by: its local header's offset, sizes, compression and flags. */
function yauzlEntry(indexed: IndexedEntry): yauzl.Entry {
  return Object.assign(new yauzl.Entry(), {
    relativeOffsetOfLocalHeader: indexed.localHeaderOffset,
    compressedSize: indexed.compressedSize,
    uncompressedSize: indexed.size,
    compressionMethod: indexed.compressionMethod,
    generalPurposeBitFlag: indexed.generalPurposeBitFlag,
  });
}

/** An entry's data can't be read: a 400 for what yauzl or zlib found wrong with it (see asUserError). */
function entryDamaged(path: string, error: unknown): Error {
  return asUserError(error, (message) => `The zip entry ${quote(path)} is damaged: ${message}`);
}

/**
 * yauzl's and zlib's complaints about the bytes become 400s; system errors (a file that can't be read, which
 * carry a `syscall`) stay faults.
 */
function asUserError(error: unknown, describe: (message: string) => string): Error {
  if (!(error instanceof Error) || error instanceof ServiceError || 'syscall' in error) return error as Error;
  return ServiceError.badRequest(describe(error.message));
}

function quote(name: string): string {
  return JSON.stringify(name);
}
