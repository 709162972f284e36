import { getHashes } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type * as Crypto from 'node:crypto';
import { GIT_BLOB_SHA1 } from './algorithms';
import { startHashingWorker, type ThreadModules } from './hashing-worker';

/**
 * Hashing streamed bytes on a thread of its own. A job's main thread also reads, zips, checksums (CRC) and
 * writes every byte; with md5, sha256 and sha512 on top it ran out of CPU long before the disk did. Here each
 * chunk is copied into a slot of a shared buffer and hashed by the thread, so hashing and the rest overlap
 * on two cores. Slots are few, so a producer that outruns the thread waits (memory stays bounded).
 *
 * A stream opens with its first message, and an `update` with `last` (the stream's announced size is reached)
 * also digests: a 1 MiB file then costs one message each way, not three and two (in a profile, messages took
 * a sixth of the main thread's time).
 */
interface Opening {
  shared: SharedArrayBuffer;
  algorithms: string[];
  size: number | undefined;
}

type Request =
  | { op: 'update'; id: number; slot: number; length: number; open?: Opening; last: boolean }
  | { op: 'digest'; id: number; open?: Opening }
  | { op: 'drop'; id: number };

type Reply =
  | { op: 'free'; id: number; slot: number }
  | { op: 'digest'; id: number; digests: Record<string, string>; slot?: number }
  | { op: 'error'; id: number; message: string; slot?: number };

/** The thread's program: one set of digests per open stream, fed from the stream's slots. */
function hashStreamsOnThread(
  { port, crypto }: ThreadModules,
  { slotBytes, gitBlobSha1 }: ThreadSettings,
): void {
  const hashers = new Map<number, { slots: Uint8Array; hashes: Crypto.Hash[]; algorithms: string[] }>();
  const reply = (message: Reply) => port.postMessage(message);
  const open = (id: number, { shared, algorithms, size }: Opening) => {
    const hashOf = (algorithm: string) =>
      algorithm === gitBlobSha1
        ? crypto.createHash('sha1').update(`blob ${size}\0`)
        : crypto.createHash(algorithm);
    hashers.set(id, { slots: new Uint8Array(shared), hashes: algorithms.map(hashOf), algorithms });
  };
  const digests = (id: number) => {
    const hasher = hashers.get(id)!;
    hashers.delete(id);
    return Object.fromEntries(hasher.hashes.map((hash, i) => [hasher.algorithms[i], hash.digest('hex')]));
  };
  const update = ({ id, slot, length, last }: Extract<Request, { op: 'update' }>) => {
    const hasher = hashers.get(id)!;
    const offset = slot * slotBytes;
    for (const hash of hasher.hashes) hash.update(hasher.slots.subarray(offset, offset + length));
    reply(last ? { op: 'digest', id, digests: digests(id), slot } : { op: 'free', id, slot });
  };
  port.on('message', (message: Request) => {
    try {
      if (message.op !== 'drop' && message.open) open(message.id, message.open);
      if (message.op === 'update') update(message);
      else if (message.op === 'digest') reply({ op: 'digest', id: message.id, digests: digests(message.id) });
      else hashers.delete(message.id);
    } catch (error) {
      hashers.delete(message.id);
      const slot = message.op === 'update' ? message.slot : undefined;
      reply({ op: 'error', id: message.id, message: (error as Error).message, slot });
    }
  });
}

interface ThreadSettings {
  slotBytes: number;
  gitBlobSha1: string;
}

const SLOT_BYTES = 1 << 20;
const SLOTS = 4;

/** Feeds chunks to several digests at once on the hashing thread; one instance per stream. */
export interface StreamHasher {
  /** resolves once the chunk is handed over (it may be reused then); waits while every slot is busy */
  update(chunk: Buffer): Promise<void>;
  /** hex digest per algorithm, once every chunk given before it is hashed; call once */
  digest(): Promise<Record<string, string>>;
  /** forgets the stream without a digest (it failed); the slots are released */
  drop(): void;
}

class ThreadedHasher implements StreamHasher {
  private readonly slots: Uint8Array;
  private readonly free: number[] = Array.from({ length: SLOTS }, (_, slot) => slot);
  private waitingForSlot: (() => void) | null = null;
  /** sent with the first message */
  private opening: Opening | null;
  private bytes = 0;
  /** the digests, asked for (or due, once the last chunk went) */
  private digests: Promise<Record<string, string>> | null = null;
  private finishing: {
    resolve: (digests: Record<string, string>) => void;
    reject: (error: Error) => void;
  } | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly thread: HashingThread,
    readonly id: number,
    readonly shared: SharedArrayBuffer,
    algorithms: readonly string[],
    private readonly size: number | undefined,
  ) {
    this.slots = new Uint8Array(shared);
    this.opening = { shared, algorithms: [...algorithms], size };
  }

  async update(chunk: Buffer): Promise<void> {
    for (let start = 0; start < chunk.length; start += SLOT_BYTES) {
      const piece = chunk.subarray(start, start + SLOT_BYTES);
      if (this.digests) throw new Error(`the stream holds more than the ${this.size} bytes announced`);
      const slot = await this.freeSlot();
      // dropped meanwhile: the thread has let the stream go, and its slots may serve another stream now
      if (this.failure) throw this.failure;
      this.slots.set(piece, slot * SLOT_BYTES);
      this.bytes += piece.length;
      const last = this.bytes === this.size;
      this.thread.post({ op: 'update', id: this.id, slot, length: piece.length, ...this.opened(), last });
      if (last) this.expectDigests();
    }
  }

  digest(): Promise<Record<string, string>> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.digests) {
      this.expectDigests();
      this.thread.post({ op: 'digest', id: this.id, ...this.opened() });
    }
    return this.digests!;
  }

  drop(): void {
    this.fail(new Error('the stream was dropped'));
    // a stream that never sent anything is unknown to the thread
    this.thread.drop(this, this.opening === null);
  }

  onReply(reply: Reply): void {
    if (reply.slot !== undefined) {
      this.free.push(reply.slot);
      this.wake();
    }
    if (reply.op === 'digest') {
      this.thread.release(this);
      this.finishing?.resolve(reply.digests);
    } else if (reply.op === 'error') {
      this.fail(new Error(`hashing failed: ${reply.message}`));
    }
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.finishing?.reject(error);
    this.wake();
  }

  /** The opening, on the stream's first message only. */
  private opened(): { open?: Opening } {
    const opening = this.opening;
    this.opening = null;
    return opening ? { open: opening } : {};
  }

  private expectDigests(): void {
    this.digests = new Promise((resolve, reject) => (this.finishing = { resolve, reject }));
    // digest() hands it out; a stream dropped before that must not leave it unhandled
    this.digests.catch(() => undefined);
  }

  private async freeSlot(): Promise<number> {
    for (;;) {
      if (this.failure) throw this.failure;
      const slot = this.free.pop();
      if (slot !== undefined) return slot;
      await new Promise<void>((resolve) => (this.waitingForSlot = resolve));
    }
  }

  private wake(): void {
    const waiting = this.waitingForSlot;
    this.waitingForSlot = null;
    waiting?.();
  }
}

/** The thread and its streams. Slot buffers are kept for the next stream instead of being allocated anew. */
class HashingThread {
  private worker: Worker | null = null;
  private readonly active = new Map<number, ThreadedHasher>();
  private readonly spareBuffers: SharedArrayBuffer[] = [];
  private nextId = 0;

  open(algorithms: readonly string[], size: number | undefined): StreamHasher {
    const shared = this.spareBuffers.pop() ?? new SharedArrayBuffer(SLOT_BYTES * SLOTS);
    const hasher = new ThreadedHasher(this, this.nextId++, shared, algorithms, size);
    this.active.set(hasher.id, hasher);
    return hasher;
  }

  post(message: Request): void {
    const worker = this.started();
    worker.ref();
    worker.postMessage(message);
  }

  /**
   * Forgets a stream that ends without a digest. One the thread never heard of, or already let go of (it
   * failed, or the thread died), needs no message: sending one would start a thread that nothing releases.
   */
  drop(hasher: ThreadedHasher, opened: boolean): void {
    if (!this.active.has(hasher.id)) return;
    if (opened) this.post({ op: 'drop', id: hasher.id });
    this.release(hasher);
  }

  release(hasher: ThreadedHasher): void {
    if (!this.active.delete(hasher.id)) return;
    // a few spares cover the streams of a job that run at the same time
    if (this.spareBuffers.length < 8) this.spareBuffers.push(hasher.shared);
    // the thread keeps the process alive only while a stream is open
    if (this.active.size === 0) this.worker?.unref();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startHashingWorker(hashStreamsOnThread, {
      slotBytes: SLOT_BYTES,
      gitBlobSha1: GIT_BLOB_SHA1,
    });
    worker.on('message', (reply: Reply) => this.active.get(reply.id)?.onReply(reply));
    const failAll = (error: Error) => {
      for (const hasher of this.active.values()) hasher.fail(error);
      this.active.clear();
      this.worker = null;
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the hashing thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const thread = new HashingThread();
const KNOWN = new Set([...getHashes().map((name) => name.toLowerCase()), GIT_BLOB_SHA1]);

/**
 * A stream hasher on the shared hashing thread; throws at once for an algorithm it does not know. A git blob
 * id covers a header with the size, so `git-blob-sha1` needs the stream's `size`.
 */
export function createStreamHasher(algorithms: readonly string[], size?: number): StreamHasher {
  const unknown = algorithms.find((algorithm) => !KNOWN.has(algorithm.toLowerCase()));
  if (unknown) throw new Error(`Unknown hash algorithm: ${unknown}`);
  if (algorithms.includes(GIT_BLOB_SHA1) && size === undefined)
    throw new Error(`${GIT_BLOB_SHA1} needs the size of the stream`);
  return thread.open(algorithms, size);
}
