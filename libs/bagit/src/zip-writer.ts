import { close as closeFd, closeSync, openSync, readSync, write, writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { crc32, createDeflateRaw } from 'node:zlib';

const writeAt = promisify(write);
const closeAsync = promisify(closeFd);

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const UTF8_NAMES = 0x0800;
const USES_DATA_DESCRIPTOR = 0x0008;
const STORED = 0;
const DEFLATED = 8;
/** made by: Unix (for the file modes in the external attributes), version 4.5 (ZIP64) */
const MADE_BY = (3 << 8) | 45;
const FILE_MODE = (0o100644 << 16) >>> 0;
const DIRECTORY_MODE = ((0o40755 << 16) | 0x10) >>> 0;
/** Central records are spilled to their file in batches of about this size. */
const BATCH_BYTES = 1 << 16;

/** One entry's fields, as its local header and its central record give them. */
interface EntryFields {
  name: Buffer;
  flags: number;
  method: number;
  crc: number;
  size: number;
  compressedSize: number;
  /** where its local header starts */
  offset: number;
  directory: boolean;
  /**
   * Whether its local header has a ZIP64 extended information field: its data descriptor's sizes are then 8
   * bytes each, and only then (APPNOTE 4.3.9.2).
   */
  zip64: boolean;
}

/** Where the zip's bytes go: a file, written at any position, or a stream, written in order. */
interface ZipSink {
  /** a file: entries reserved here may be filled by another thread through its own file descriptor */
  readonly path: string | null;
  write(bytes: Buffer, position: number): Promise<void>;
  close(): Promise<void>;
  destroy(error: Error): void;
}

/** An entry laid out ahead of its data, which someone else writes at `dataStart` of the file `path`. */
export interface ReservedEntry {
  path: string;
  dataStart: number;
  /** Writes the entry's local header, once all its data is there: the entry is complete from then on. */
  complete(crc: number): Promise<void>;
}

/** How a streamed entry is written. */
export interface StreamEntryOptions {
  /** deflated (method 8) or stored (method 0) */
  deflate: boolean;
  /**
   * when deflated: zlib's level 1 by default, or 0, the bytes as they are in deflate's stored blocks
   * (storedBlocks), which any inflater reads
   */
  level?: 0 | 1;
  /** the size announced, when known: it decides whether the local header has a ZIP64 field */
  size?: number;
  /** sees each chunk first, and may hold the next back by returning a promise */
  each?: (chunk: Buffer) => unknown;
}

/**
 * A zip file's layout, written by hand rather than by archiver: archiver's chain of streams per entry (archiver,
 * zip-stream, compress-commons, crc32-stream) took about 0.5 CPU s of the main thread per 1,024 entries, and it
 * can only take an entry's bytes through itself. Here a stored entry of known size can be reserved (local
 * header and data) and filled by a hashing thread, writing into the file at its place, while the next entries
 * are laid out after it. A reserved entry's local header is written once its data is complete, so that a partial
 * zip's walk (completeZipEntries) stops before an incomplete one. A streamed entry (unknown bytes to
 * deflate, or any entry of a stream output) is written in order: its local header, its data, and a data
 * descriptor with its CRC-32 and sizes, 8 bytes each when its local header announced ZIP64 (mayReach4GiB). The
 * central directory waits in a file (in memory for a zip of a few entries) until finish(). ZIP64 records are
 * used where sizes, offsets or the count need them.
 */
export class ZipWriter {
  private readonly sink: ZipSink;
  private readonly central: CentralRecords;
  private readonly time: number;
  private readonly date: number;
  /** where the next entry starts */
  private offset = 0;
  /** settles once the entries added so far are laid out: a streamed entry's end is known once it is written */
  private laidOut: Promise<unknown> = Promise.resolve();

  /**
   * `centralDirectoryPath`: the file the central directory's records wait in until finish(); without it they
   * wait in memory, which suits a zip of a few entries only.
   */
  constructor(output: Writable | string, centralDirectoryPath?: string) {
    this.sink = typeof output === 'string' ? fileSink(output) : streamSink(output);
    this.central = new CentralRecords(centralDirectoryPath);
    const now = new Date();
    this.time = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
    this.date = ((now.getFullYear() - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
  }

  /** Whether entries may be reserved for others to fill: the output is a file. */
  get takesReservations(): boolean {
    return this.sink.path !== null;
  }

  addDirectory(name: string): Promise<void> {
    return this.inTurn(async () => {
      const entry = this.fields(name, 0, STORED, true);
      this.offset += 30 + entry.name.length;
      await this.sink.write(this.localHeader(entry), entry.offset);
      this.central.add(this.centralRecord(entry));
    });
  }

  /**
   * Streams `content` into the entry `name` (deflated or stored), showing each chunk to `each` first (which
   * may hold the next chunk back by returning a promise); resolves with the count of bytes read once the
   * entry is written.
   */
  addStream(name: string, content: Readable, options: StreamEntryOptions): Promise<number> {
    return this.inTurn(() => this.writeStream(name, content, options));
  }

  private async writeStream(name: string, content: Readable, options: StreamEntryOptions): Promise<number> {
    const entry = this.fields(name, USES_DATA_DESCRIPTOR, options.deflate ? DEFLATED : STORED, false);
    entry.zip64 = mayReach4GiB(options.size, options.deflate);
    const header = this.localHeader(entry);
    await this.sink.write(header, entry.offset);
    const dataStart = entry.offset + header.length;
    let position = dataStart;
    const sink = this.sink;
    const writeOut = async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        checkFits(entry, position + chunk.length - dataStart, options.size);
        await sink.write(chunk, position);
        position += chunk.length;
      }
    };
    const seen = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        entry.crc = crc32(chunk, entry.crc);
        entry.size += chunk.length;
        checkFits(entry, entry.size, options.size);
        await options.each?.(chunk);
        yield chunk;
      }
    };
    if (options.deflate) {
      const deflate = options.level === 0 ? storedBlocks : createDeflateRaw({ level: 1 });
      await pipeline(content, seen, deflate, writeOut);
    } else await writeOut(seen(content));
    entry.compressedSize = position - dataStart;
    const descriptor = dataDescriptor(entry);
    await this.sink.write(descriptor, position);
    this.offset = position + descriptor.length;
    this.central.add(this.centralRecord(entry));
    return entry.size;
  }

  /**
   * Lays out a stored entry of `size` bytes for someone else to write into the file (takesReservations);
   * resolves once the entries before it are laid out.
   */
  reserve(name: string, size: number): Promise<ReservedEntry> {
    return this.inTurn(async () => this.reserveNext(name, size));
  }

  private reserveNext(name: string, size: number): ReservedEntry {
    if (this.sink.path === null) throw new Error('Only a zip written to a file takes reserved entries');
    const entry = this.fields(name, 0, STORED, false);
    entry.size = entry.compressedSize = size;
    entry.zip64 = size >= MAX32;
    const headerLength = 30 + entry.name.length + (entry.zip64 ? 20 : 0);
    this.offset += headerLength + size;
    return {
      path: this.sink.path,
      dataStart: entry.offset + headerLength,
      complete: async (crc) => {
        entry.crc = crc;
        await this.sink.write(this.localHeader(entry), entry.offset);
        this.central.add(this.centralRecord(entry));
      },
    };
  }

  /**
   * Writes the central directory and the end records after every entry; resolves once the output has all.
   * Every reserved entry must be complete.
   */
  async finish(): Promise<void> {
    await this.laidOut;
    const start = this.offset;
    const length = await this.central.copyTo(this.sink, start);
    const count = this.central.count;
    const ends: Buffer[] = [];
    if (count >= MAX16 || start >= MAX32 || length >= MAX32)
      ends.push(zip64End(count, start, length), zip64Locator(start + length));
    ends.push(end(count, start, length));
    await this.sink.write(Buffer.concat(ends), start + length);
    this.central.close();
    await this.sink.close();
  }

  /** Stops: the output is closed (a stream destroyed with `error`), the central directory's file left. */
  abort(error: Error): void {
    this.central.close();
    this.sink.destroy(error);
  }

  /** Runs `work` once the entries added before are laid out; a failed one fails those after it. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.laidOut.then(work);
    this.laidOut = result;
    // the next entry in turn rejects too; whoever added this one sees the failure
    result.catch(() => undefined);
    return result;
  }

  /** A new entry at the current end of the layout. */
  private fields(name: string, flags: number, method: number, directory: boolean): EntryFields {
    const bytes = Buffer.from(name);
    if (bytes.length > MAX16) throw new Error(`The zip entry name ${name.slice(0, 80)}... is too long`);
    return {
      name: bytes,
      flags: flags | UTF8_NAMES,
      method,
      crc: 0,
      size: 0,
      compressedSize: 0,
      offset: this.offset,
      directory,
      zip64: false,
    };
  }

  /**
   * A ZIP64 entry's local header has both sizes in its ZIP64 field (APPNOTE 4.5.3), 0xFFFFFFFF in their 32-bit
   * places; they are zero there for an entry with a data descriptor, whose sizes come after its data.
   */
  private localHeader(entry: EntryFields): Buffer {
    const { zip64 } = entry;
    const header = Buffer.alloc(30 + entry.name.length + (zip64 ? 20 : 0));
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(zip64 ? 45 : 20, 4);
    header.writeUInt16LE(entry.flags, 6);
    header.writeUInt16LE(entry.method, 8);
    header.writeUInt16LE(this.time, 10);
    header.writeUInt16LE(this.date, 12);
    const descriptor = (entry.flags & USES_DATA_DESCRIPTOR) !== 0;
    header.writeUInt32LE(descriptor ? 0 : entry.crc, 14);
    header.writeUInt32LE(zip64 ? MAX32 : descriptor ? 0 : entry.compressedSize, 18);
    header.writeUInt32LE(zip64 ? MAX32 : descriptor ? 0 : entry.size, 22);
    header.writeUInt16LE(entry.name.length, 26);
    header.writeUInt16LE(zip64 ? 20 : 0, 28);
    entry.name.copy(header, 30);
    if (zip64) {
      const extra = 30 + entry.name.length;
      header.writeUInt16LE(0x0001, extra);
      header.writeUInt16LE(16, extra + 2);
      header.writeBigUInt64LE(BigInt(descriptor ? 0 : entry.size), extra + 4);
      header.writeBigUInt64LE(BigInt(descriptor ? 0 : entry.compressedSize), extra + 12);
    }
    return header;
  }

  /** The sizes and offset past 32 bits go in a ZIP64 extra field, in the order the format sets. */
  private centralRecord(entry: EntryFields): Buffer {
    const wide = [entry.size, entry.compressedSize, entry.offset].filter((value) => value >= MAX32);
    const extraLength = wide.length > 0 ? 4 + 8 * wide.length : 0;
    const record = Buffer.alloc(46 + entry.name.length + extraLength);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(MADE_BY, 4);
    record.writeUInt16LE(wide.length > 0 || entry.zip64 ? 45 : 20, 6);
    record.writeUInt16LE(entry.flags, 8);
    record.writeUInt16LE(entry.method, 10);
    record.writeUInt16LE(this.time, 12);
    record.writeUInt16LE(this.date, 14);
    record.writeUInt32LE(entry.crc, 16);
    record.writeUInt32LE(Math.min(entry.compressedSize, MAX32), 20);
    record.writeUInt32LE(Math.min(entry.size, MAX32), 24);
    record.writeUInt16LE(entry.name.length, 28);
    record.writeUInt16LE(extraLength, 30);
    record.writeUInt32LE(entry.directory ? DIRECTORY_MODE : FILE_MODE, 38);
    record.writeUInt32LE(Math.min(entry.offset, MAX32), 42);
    entry.name.copy(record, 46);
    if (wide.length > 0) {
      const extra = 46 + entry.name.length;
      record.writeUInt16LE(0x0001, extra);
      record.writeUInt16LE(8 * wide.length, extra + 2);
      wide.forEach((value, i) => record.writeBigUInt64LE(BigInt(value), extra + 4 + 8 * i));
    }
    return record;
  }
}

/** The most bytes a stored deflate block holds (RFC 1951 3.2.4: LEN is 16 bits). */
const MAX_STORED_BLOCK = 0xffff;
/** A stored block with its 5-byte header. */
const FRAMED_BLOCK = 5 + MAX_STORED_BLOCK;
/** Blocks gathered before they are written out: about 1 MiB a write, as a file's chunks come. */
const BLOCKS_PER_WRITE = 16;

/**
 * Raw deflate at level 0, framed here: the bytes in stored blocks of 65,535 bytes, whatever the chunks they came
 * in, each after its 5-byte header (BFINAL and BTYPE 00 on a byte of their own, LEN, NLEN: RFC 1951 3.2.4), the
 * last one (BFINAL) holding what is left, so that `size` bytes always take size + 5 × (⌊size / 65,535⌋ + 1),
 * within deflateBound. zlib's level 0 through Node's stream cost 3.4 CPU s a GiB at its 16 KiB chunks and 0.8
 * at 1 MiB (`node` microbenchmark, 2026-11-27); this costs a copy of each byte.
 */
async function* storedBlocks(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let out = Buffer.allocUnsafe(BLOCKS_PER_WRITE * FRAMED_BLOCK);
  // where the block being filled starts in `out`, and its bytes so far
  let at = 0;
  let filled = 0;
  for await (const chunk of chunks) {
    for (let start = 0; start < chunk.length;) {
      const taken = chunk.copy(out, at + 5 + filled, start, start + MAX_STORED_BLOCK - filled);
      start += taken;
      filled += taken;
      if (filled < MAX_STORED_BLOCK) continue;
      storedBlockHeader(out, at, filled, false);
      at += FRAMED_BLOCK;
      filled = 0;
      if (at < out.length) continue;
      yield out;
      out = Buffer.allocUnsafe(out.length);
      at = 0;
    }
  }
  storedBlockHeader(out, at, filled, true);
  yield out.subarray(0, at + 5 + filled);
}

/** Writes a stored block's 5-byte header at `at` in `into`. */
function storedBlockHeader(into: Buffer, at: number, length: number, final: boolean): void {
  into[at] = final ? 1 : 0;
  into.writeUInt16LE(length, at + 1);
  into.writeUInt16LE(~length & 0xffff, at + 3);
}

/**
 * Whether a streamed entry's local header must announce ZIP64, before its data: when its size is unknown, or
 * when it, or its deflated form at worst, may reach 0xFFFFFFFF (which in a 32-bit field means "see the ZIP64
 * field"). As Info-ZIP's zip does for a stream of unknown size; APPNOTE 4.3.9.2 lets any entry be ZIP64.
 */
function mayReach4GiB(size: number | undefined, deflate: boolean): boolean {
  if (size === undefined) return true;
  return (deflate ? deflateBound(size) : size) >= MAX32;
}

/**
 * The most bytes raw deflate makes of `size` bytes at zlib's default windowBits and memLevel, as createDeflateRaw
 * uses (zlib's deflateBound in deflate.c): incompressible bytes go into stored blocks of about 16 KiB, 5 bytes of
 * header each.
 */
function deflateBound(size: number): number {
  return size + Math.floor(size / 2 ** 12) + Math.floor(size / 2 ** 14) + Math.floor(size / 2 ** 25) + 7;
}

/**
 * Refuses a streamed entry's `length` (its bytes so far, read or written) that its data descriptor could not
 * give: 4 GiB or more in an entry whose local header chose 32-bit sizes from the size announced.
 */
function checkFits(entry: EntryFields, length: number, announced: number | undefined): void {
  if (!entry.zip64 && length >= MAX32)
    throw new Error(
      `The zip entry ${entry.name.toString().slice(0, 80)} passed 4 GiB, more than the ${announced} bytes announced`,
    );
}

/** The sizes after an entry's data, 8 bytes each when its local header announced ZIP64, else 4. */
function dataDescriptor(entry: EntryFields): Buffer {
  const descriptor = Buffer.alloc(entry.zip64 ? 24 : 16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  if (entry.zip64) {
    descriptor.writeBigUInt64LE(BigInt(entry.compressedSize), 8);
    descriptor.writeBigUInt64LE(BigInt(entry.size), 16);
  } else {
    descriptor.writeUInt32LE(entry.compressedSize, 8);
    descriptor.writeUInt32LE(entry.size, 12);
  }
  return descriptor;
}

function zip64End(count: number, start: number, length: number): Buffer {
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(MADE_BY, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(length), 40);
  record.writeBigUInt64LE(BigInt(start), 48);
  return record;
}

function zip64Locator(zip64EndOffset: number): Buffer {
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(zip64EndOffset), 8);
  locator.writeUInt32LE(1, 16);
  return locator;
}

function end(count: number, start: number, length: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(0x06054b50, 0);
  record.writeUInt16LE(Math.min(count, MAX16), 8);
  record.writeUInt16LE(Math.min(count, MAX16), 10);
  record.writeUInt32LE(Math.min(length, MAX32), 12);
  record.writeUInt32LE(Math.min(start, MAX32), 16);
  return record;
}

/**
 * A zip file on disk, created (or emptied) here and written at any position. Destroyed, it is closed once the
 * writes under way have ended: a descriptor closed earlier may be reused by another file, which they would hit.
 */
function fileSink(path: string): ZipSink {
  const fd = openSync(path, 'w');
  const file = { open: true, writing: 0 };
  const closeWhenIdle = () => {
    if (file.writing === 0 && file.open) closeSync(fd);
    if (file.writing === 0) file.open = false;
  };
  let destroyed = false;
  return {
    path,
    async write(bytes, position) {
      if (destroyed || !file.open) throw new Error('The zip was closed');
      file.writing++;
      try {
        for (let done = 0; done < bytes.length;)
          done += (await writeAt(fd, bytes, done, bytes.length - done, position + done)).bytesWritten;
      } finally {
        file.writing--;
        if (destroyed) closeWhenIdle();
      }
    },
    async close() {
      file.open = false;
      await closeAsync(fd);
    },
    destroy() {
      destroyed = true;
      closeWhenIdle();
    },
  };
}

/** A stream, written in order, each write awaiting its room (the stream's backpressure). */
function streamSink(output: Writable): ZipSink {
  let failure: Error | null = null;
  output.on('error', (error) => (failure ??= error));
  let written = 0;
  return {
    path: null,
    async write(bytes, position) {
      if (failure) throw failure;
      if (position !== written) throw new Error('A zip written to a stream is written in order');
      written += bytes.length;
      if (!output.write(bytes)) await drained(output);
    },
    async close() {
      output.end();
      // written, not read: whoever reads a duplex output reads it in its own time
      await finished(output, { readable: false });
    },
    destroy: (error) => output.destroy(error),
  };
}

function drained(output: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      output.off('drain', settle).off('error', settle).off('close', closed);
      if (error) reject(error);
      else resolve();
    };
    const closed = () => settle(new Error('The zip output closed before the zip was written'));
    output.once('drain', settle).once('error', settle).once('close', closed);
  });
}

/**
 * The central directory's records: in a file until the end when given one, so that memory does not grow with
 * the entries; else in memory, for a zip of a few entries.
 */
class CentralRecords {
  count = 0;
  private readonly fd: number | null;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private open = true;

  constructor(path: string | undefined) {
    this.fd = path === undefined ? null : openSync(path, 'w+');
  }

  add(record: Buffer): void {
    this.batch.push(record);
    this.batchBytes += record.length;
    this.count++;
    if (this.fd !== null && this.batchBytes >= BATCH_BYTES) this.flush(this.fd);
  }

  /** Writes every record to `sink` from `position`; their length. */
  async copyTo(sink: ZipSink, position: number): Promise<number> {
    if (this.fd === null) {
      const records = Buffer.concat(this.batch, this.batchBytes);
      await sink.write(records, position);
      return records.length;
    }
    this.flush(this.fd);
    let length = 0;
    for (;;) {
      // a buffer of its own per chunk: a stream output may hold it until it is written
      const chunk = Buffer.allocUnsafe(BATCH_BYTES);
      const read = readSync(this.fd, chunk, 0, chunk.length, length);
      if (read === 0) return length;
      await sink.write(chunk.subarray(0, read), position + length);
      length += read;
    }
  }

  close(): void {
    if (this.fd !== null && this.open) closeSync(this.fd);
    this.open = false;
  }

  private flush(fd: number): void {
    if (this.batchBytes > 0) writeSync(fd, Buffer.concat(this.batch, this.batchBytes));
    this.batch = [];
    this.batchBytes = 0;
  }
}
