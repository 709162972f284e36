import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startHashingWorker, type ThreadModules } from './hashing-worker';

/** A part of a file: `length` bytes from `start` (a stored entry's data inside a zip). */
export interface ByteRange {
  start: number;
  length: number;
}

interface Request {
  id: number;
  path: string;
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
 * hashing use separate cores.
 */
function hashFilesOnThread({ port, crypto, fs }: ThreadModules): void {
  // one buffer, reused for every chunk: the thread allocates nothing per chunk, so it leaves no garbage behind
  const buffer = Buffer.allocUnsafe(1 << 20);
  port.on('message', ({ id, path, algorithms, range }: Request) => {
    let fd: number | undefined;
    let reply: Reply;
    try {
      const hashes = algorithms.map((algorithm) => crypto.createHash(algorithm));
      fd = fs.openSync(path, 'r');
      // a whole file is read from its current position, a range from its start up to its length
      let position = range ? range.start : null;
      let left = range ? range.length : Infinity;
      for (
        let read;
        left > 0 && (read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, left), position)) > 0;
      ) {
        const chunk = buffer.subarray(0, read);
        for (const hash of hashes) hash.update(chunk);
        left -= read;
        if (position !== null) position += read;
      }
      if (range && left > 0)
        throw new Error(`${path} ends before the ${range.length} bytes from ${range.start}`);
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

  hash(path: string, algorithms: readonly string[], range?: ByteRange): Promise<Record<string, string>> {
    const id = this.nextId++;
    const worker = this.worker(id % this.size);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.holdProcess(true);
      const request: Request = { id, path, algorithms: [...algorithms], range };
      worker.postMessage(request);
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
  return pool.hash(path, algorithms, range);
}
