import type { ThreadModules } from './hashing-worker';
import { hashingThreads, type HashingThread } from './hashing-threads';

/** A part of a file: `length` bytes from `start` (a stored entry's data inside a zip). */
export interface ByteRange {
  start: number;
  length: number;
}

/** Either a file to hash (`path`, or a `range` of it), or bytes to copy from one open file into another. */
interface Request {
  family: 'file';
  id: number;
  path?: string;
  copy?: { from: number; to: number; length: number };
  algorithms: string[];
  range?: ByteRange;
}

interface Reply {
  family: 'file';
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
  port.on('message', (message: Request | { family: 'stream' }) => {
    if (message.family !== 'file') return;
    const { id, path, copy, algorithms, range } = message;
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
        family: 'file',
        id,
        digests: Object.fromEntries(hashes.map((hash, i) => [algorithms[i], hash.digest('hex')])),
      };
    } catch (error) {
      const { message, code } = error as NodeJS.ErrnoException;
      reply = { family: 'file', id, error: { message, code } };
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    port.postMessage(reply);
  });
}

/** The files being hashed or copied on the hashing threads, by request id. */
class HashPool {
  private readonly pending = new Map<
    number,
    {
      thread: HashingThread;
      resolve: (digests: Record<string, string>) => void;
      reject: (error: Error) => void;
    }
  >();
  private nextId = 0;

  /** Sends `request` (with an id of its own) to one of the threads, in turn; its digests. */
  run(request: Omit<Request, 'id' | 'family'>): Promise<Record<string, string>> {
    const id = this.nextId++;
    const thread = hashingThreads.at(id);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { thread, resolve, reject });
      thread.hold();
      thread.post<Request>({ ...request, family: 'file', id });
    });
  }

  reply({ id, digests, error }: Reply, thread: HashingThread): void {
    const request = this.pending.get(id);
    if (!request) return;
    this.pending.delete(id);
    thread.release();
    if (digests) request.resolve(digests);
    else request.reject(Object.assign(new Error(error?.message ?? 'hashing failed'), { code: error?.code }));
  }

  /** A thread died: every request it had fails. */
  failed(error: Error, thread: HashingThread): void {
    for (const [id, request] of this.pending) {
      if (request.thread !== thread) continue;
      this.pending.delete(id);
      request.reject(error);
    }
  }
}

const pool = new HashPool();
hashingThreads.register('file', hashFilesOnThread, undefined, pool);

/** How many hashing threads there are; each costs some memory, and more than the cores gains nothing. */
export function setHashThreads(threads: number): void {
  hashingThreads.resize(threads);
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
