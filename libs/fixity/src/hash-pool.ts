import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startHashingWorker, type ThreadModules } from './hashing-worker';

/** A part of a file: `length` bytes from `start` (a stored entry's data inside a zip). */
export interface ByteRange {
  start: number;
  length: number;
}

/** Either a file to hash (`path`, or a `range` of it), or bytes to copy from one open file into another. */
interface Request {
  id: number;
  path?: string;
  copy?: { from: number; to: number; length: number };
  algorithms: string[];
  range?: ByteRange;
}

interface Reply {
  id: number;
  digests?: Record<string, string>;
  error?: { message: string; code?: string };
}

/**
 * The thread's program, hashing a file off the main thread: the thread reads (synchronously: it does nothing
 * else) and hashes it in 1 MiB chunks, so the main thread (which also streams and hashes job data) and the
 * hashing use separate cores. A copy writes each chunk on into the other file as well.
 */
function hashFilesOnThread({ port, crypto, fs }: ThreadModules): void {
  // one buffer, reused for every chunk: the thread allocates nothing per chunk, so it leaves no garbage behind
  const buffer = Buffer.allocUnsafe(1 << 20);
  /** Reads `length` bytes (or to the end) of `fd` from `position` (or its current one), chunk by chunk. */
  const readChunks = (fd: number, position: number | null, length: number, each: (chunk: Buffer) => void) => {
    let left = length;
    for (
      let read;
      left > 0 && (read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, left), position)) > 0;
    ) {
      each(buffer.subarray(0, read));
      left -= read;
      if (position !== null) position += read;
    }
    return left;
  };
  const writeAll = (fd: number, chunk: Buffer) => {
    for (let written = 0; written < chunk.length;) written += fs.writeSync(fd, chunk, written);
  };
  port.on('message', ({ id, path, copy, algorithms, range }: Request) => {
    let fd: number | undefined;
    let reply: Reply;
    try {
      const hashes = algorithms.map((algorithm) => crypto.createHash(algorithm));
      const hashChunk = (chunk: Buffer) => hashes.forEach((hash) => hash.update(chunk));
      if (copy) {
        // the source's open file is read from its start; what it holds beyond `length` is left
        readChunks(copy.from, 0, copy.length, (chunk) => {
          hashChunk(chunk);
          writeAll(copy.to, chunk);
        });
      } else {
        fd = fs.openSync(path!, 'r');
        // a whole file is read from its current position, a range from its start up to its length
        const left = readChunks(fd, range ? range.start : null, range ? range.length : Infinity, hashChunk);
        if (range && left > 0)
          throw new Error(`${path} ends before the ${range.length} bytes from ${range.start}`);
      }
      reply = {
        id,
        digests: Object.fromEntries(hashes.map((hash, i) => [algorithms[i], hash.digest('hex')])),
      };
    } catch (error) {
      const { message, code } = error as NodeJS.ErrnoException;
      reply = { id, error: { message, code } };
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    port.postMessage(reply);
  });
}

class HashPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (digests: Record<string, string>) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;

  constructor(private size: number) {}

  resize(size: number): void {
    this.size = size;
  }

  /** Sends `request` (with an id of its own) to one of the threads; its digests. */
  run(request: Omit<Request, 'id'>): Promise<Record<string, string>> {
    const id = this.nextId++;
    const worker = this.worker(id % this.size);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.holdProcess(true);
      worker.postMessage({ ...request, id });
    });
  }

  private worker(index: number): Worker {
    let worker = this.workers[index];
    if (!worker) {
      worker = startHashingWorker(hashFilesOnThread, undefined);
      worker.on('message', (reply: Reply) => this.settle(reply));
      worker.on('error', (error) => this.failAll(error));
      this.workers[index] = worker;
    }
    return worker;
  }

  private settle({ id, digests, error }: Reply): void {
    const request = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.holdProcess(false);
    if (!request) return;
    if (digests) request.resolve(digests);
    else request.reject(Object.assign(new Error(error?.message ?? 'hashing failed'), { code: error?.code }));
  }

  private failAll(error: Error): void {
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
    this.holdProcess(false);
    this.workers.length = 0;
  }

  /** Threads keep the process alive only while a hash is pending, never when idle. */
  private holdProcess(hold: boolean): void {
    for (const worker of this.workers) {
      if (hold) worker.ref();
      else worker.unref();
    }
  }
}

const pool = new HashPool(1);

/** How many threads hash files; each costs some memory, and more than the cores left over gains nothing. */
export function setHashThreads(threads: number): void {
  pool.resize(Math.max(1, Math.min(threads, availableParallelism())));
}

/**
 * Hex digests of a file (or of `range` of it) for each algorithm, read once in 1 MiB chunks on a hashing
 * thread. Reading follows links: give a path the caller controls.
 */
export function hashFile(
  path: string,
  algorithms: readonly string[],
  range?: ByteRange,
): Promise<Record<string, string>> {
  return pool.run({ path, algorithms: [...algorithms], range });
}

/**
 * Copies `length` bytes (or fewer, where the file ends first) from the start of the open file `from` into the
 * open file `to`, on a hashing thread, in 1 MiB chunks of one reused buffer; the hex digests of the bytes
 * copied for each algorithm. The caller keeps and closes both descriptors.
 */
export function copyHashing(
  from: number,
  to: number,
  length: number,
  algorithms: readonly string[],
): Promise<Record<string, string>> {
  return pool.run({ copy: { from, to, length }, algorithms: [...algorithms] });
}
