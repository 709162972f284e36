import type { Archiver } from 'archiver';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { once } from 'node:events';

/** What this module uses of archiver's zip output (compress-commons' ZipArchiveOutputStream, locked version). */
interface ZipOutput {
  offset: number;
  _entries: { length: number; push(entry: unknown): void };
  _archive: {
    centralOffset: number;
    centralLength: number;
    processing: boolean;
    finish: boolean;
    finished: boolean;
  };
  _afterAppend(entry: unknown): void;
  _writeCentralFileHeader(entry: unknown): void;
  _writeCentralDirectoryZip64(): void;
  _writeCentralDirectoryEnd(): void;
  _finish(): void;
  isZip64(): boolean;
  write(chunk: Buffer | string): boolean;
  end(): void;
  once(event: 'drain', listener: () => void): unknown;
}

/** Records are written to the file in batches of about this size. */
const BATCH_BYTES = 1 << 16;

/**
 * Makes a zip archiver keep its central directory in the file `path` instead of in memory. archiver keeps every
 * entry's object until the end, then writes the whole directory in about a dozen small synchronous writes per
 * entry, which the stream buffers all at once (a 99,000-entry zip reached 1 GiB RSS). Here each entry's central
 * record is written as soon as the entry is complete (its CRC, sizes and offset are known then), the object is
 * dropped, and the records stream back at the end, waiting on the output.
 */
export function spillCentralDirectory(archive: Archiver, path: string): { close(): void } {
  const zip = (archive as unknown as { _module: { engine: ZipOutput } })._module.engine;
  const fd = openSync(path, 'w+');
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let open = true;
  const flush = () => {
    if (batchBytes > 0) writeSync(fd, Buffer.concat(batch, batchBytes));
    batch = [];
    batchBytes = 0;
  };
  // the count is what the end records need of the list
  zip._entries = {
    length: 0,
    push() {
      this.length += 1;
    },
  };

  // The record's bytes, collected instead of written (and not counted in the output's offset), by running
  // the library's own record writer on an object that only collects: the stream object itself is left alone
  // (swapping and deleting its `write` made V8 slow down every later access to it).
  const recorder = {
    write(chunk: Buffer | string): boolean {
      // a name is written as a string when it is ASCII; the stream would encode it as UTF-8
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      batch.push(bytes);
      batchBytes += bytes.length;
      return true;
    },
  };
  const afterAppend = zip._afterAppend.bind(zip);
  zip._afterAppend = (entry) => {
    zip._writeCentralFileHeader.call(recorder, entry);
    if (batchBytes >= BATCH_BYTES) flush();
    afterAppend(entry);
  };

  zip._finish = () => {
    flush();
    void writeCentralDirectory(zip, fd).catch((error: Error) =>
      (archive as unknown as NodeJS.EventEmitter).emit('error', error),
    );
  };
  return {
    // finalize() and abort() both close
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** The spilled records, then the end records, as ZipArchiveOutputStream._finish writes them. */
async function writeCentralDirectory(zip: ZipOutput, fd: number): Promise<void> {
  zip._archive.centralOffset = zip.offset;
  const chunk = Buffer.allocUnsafe(BATCH_BYTES);
  for (let position = 0; ;) {
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    position += read;
    if (!zip.write(Buffer.from(chunk.subarray(0, read))))
      await once(zip as unknown as NodeJS.EventEmitter, 'drain');
  }
  zip._archive.centralLength = zip.offset - zip._archive.centralOffset;
  if (zip.isZip64()) zip._writeCentralDirectoryZip64();
  zip._writeCentralDirectoryEnd();
  zip._archive.processing = false;
  zip._archive.finish = true;
  zip._archive.finished = true;
  zip.end();
}
