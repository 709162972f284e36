import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import type * as Zlib from 'node:zlib';
import { Worker, type MessagePort } from 'node:worker_threads';

/** A part of a file: `length` bytes from `start` (a stored entry's data inside a zip). */
export interface ByteRange {
  start: number;
  length: number;
}

/** The modules a thread body gets from the thread it runs in (it cannot import: see `startHashingWorker`). */
export interface ThreadModules {
  port: MessagePort;
  crypto: typeof Crypto;
  fs: typeof Fs;
  zlib: typeof Zlib;
  chunks: FileChunks;
}

/** Reading and writing open files in chunks of one 1 MiB buffer, reused: a thread makes no garbage per chunk. */
export interface FileChunks {
  /** Reads up to `length` bytes of `fd` from `position` (or its current one), chunk by chunk; the bytes read. */
  read(fd: number, position: number | null, length: number, each: (chunk: Buffer) => void): number;
  /**
   * Reads the regular file at `path` (following links: a path the caller controls; anything else refused as
   * openRegular does), whole or a `range` of it.
   */
  readFile(path: string, range: ByteRange | undefined, each: (chunk: Buffer) => void): void;
  /**
   * Opens the regular file at `path` for reading, as @app/common's openRegularFileSync does (a thread cannot
   * import it): a FIFO is refused rather than waited on for a writer, and so is a symlink unless `follow`.
   */
  openRegular(path: string, options: { follow: boolean }): number;
  /** Writes the whole of `chunk` at `fd`'s position, or from `position`. */
  writeAll(fd: number, chunk: Buffer, position?: number | null): void;
}

/** The thread's FileChunks, made in the thread as a body is run there: it may use only its argument. */
function fileChunksOnThread(fs: typeof Fs): FileChunks {
  const buffer = Buffer.allocUnsafe(1 << 20);
  return {
    read(fd, position, length, each) {
      let done = 0;
      for (
        let read;
        done < length &&
        (read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, length - done), position)) > 0;
      ) {
        each(buffer.subarray(0, read));
        done += read;
        if (position !== null) position += read;
      }
      return done;
    },
    openRegular(path, { follow }) {
      const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
      const fd = fs.openSync(path, O_RDONLY | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
      if (fs.fstatSync(fd).isFile()) return fd;
      fs.closeSync(fd);
      const error = new Error('The file was replaced by something that is not a regular file.');
      throw Object.assign(error, { code: 'EINVAL' });
    },
    readFile(path, range, each) {
      const fd = this.openRegular(path, { follow: true });
      try {
        // a whole file is read from its current position, a range from its start up to its length
        const read = this.read(fd, range ? range.start : null, range ? range.length : Infinity, each);
        if (range && read < range.length)
          throw new Error(`${path} ends before the ${range.length} bytes from ${range.start}`);
      } finally {
        fs.closeSync(fd);
      }
    },
    writeAll(fd, chunk, position = null) {
      for (let written = 0; written < chunk.length;)
        written += fs.writeSync(
          fd,
          chunk,
          written,
          chunk.length - written,
          position === null ? null : position + written,
        );
    },
  };
}

/** A function run as a thread's whole program: it may use only its arguments, never this module's scope. */
export type ThreadBody<Settings> = (modules: ThreadModules, settings: Settings) => void;

/**
 * Starts a hashing thread running each of `programs` (each attaches its own listener to the port). A body is
 * type-checked and linted with the rest of the code and sent to the thread as its compiled source text, so it
 * works the same from the built bundles (which have no separate file for a thread to load) and from the test
 * sources. It therefore takes its modules and settings as arguments. A hashing thread needs almost no heap:
 * small limits keep the process's memory flat.
 */
export function startHashingWorker(programs: { body: ThreadBody<unknown>; settings: unknown }[]): Worker {
  const modules =
    "{ port: require('node:worker_threads').parentPort, crypto: require('node:crypto'), fs: require('node:fs'), zlib: require('node:zlib') }";
  const calls = programs.map(
    ({ body, settings }) => `(${body.toString()})(modules, ${JSON.stringify(settings) ?? 'undefined'});`,
  );
  const chunks = `modules.chunks = (${fileChunksOnThread.toString()})(modules.fs);`;
  return new Worker(`const modules = ${modules};\n${chunks}\n${calls.join('\n')}`, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4, codeRangeSizeMb: 8 },
  });
}
