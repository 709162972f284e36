import { createHash, getHashes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type * as Crypto from 'node:crypto';
import { GIT_BLOB_SHA1 } from './algorithms';
import { startHashingWorker, type ThreadModules } from './hashing-worker';

/**
 * Hashing streamed bytes on threads of their own. A job's main thread also reads, zips, checksums (CRC) and
 * writes every byte; with md5, sha256 and sha512 on top it ran out of CPU long before the disk did. Here each
 * chunk is copied into a slot of a shared buffer and hashed by the threads, so hashing and the rest overlap.
 * A stream's algorithms are shared out among as many threads as there are cores (each digest is serial:
 * md5 and sha512 on one thread took a download's whole time on their own). Slots are few, so a producer
 * that outruns the threads waits (memory stays bounded).
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

/** Feeds chunks to several digests at once on the hashing threads; one instance per stream. */
export interface StreamHasher {
  /** resolves once the chunk is handed over (it may be reused then); waits while every slot is busy */
  update(chunk: Buffer): Promise<void>;
  /** hex digest per algorithm, once every chunk given before it is hashed; call once */
  digest(): Promise<Record<string, string>>;
  /** forgets the stream without a digest (it failed); the slots are released */
  drop(): void;
}

/** A share of a stream's algorithms, hashed on one thread. */
interface Part {
  thread: HashingThread;
  algorithms: string[];
}

class ThreadedHasher implements StreamHasher {
  private readonly slots: Uint8Array;
  private readonly free: number[] = Array.from({ length: SLOTS }, (_, slot) => slot);
  /** per slot: the threads that have not yet hashed what it holds */
  private readonly unhashed = new Uint8Array(SLOTS);
  private waitingForSlot: (() => void) | null = null;
  /** the threads have had the stream's first message */
  private opened = false;
  private bytes = 0;
  /** the digests, asked for (or due, once the last chunk went) */
  private digests: Promise<Record<string, string>> | null = null;
  private readonly collected: Record<string, string> = {};
  private partsLeft: number;
  private finishing: {
    resolve: (digests: Record<string, string>) => void;
    reject: (error: Error) => void;
  } | null = null;
  private failure: Error | null = null;

  constructor(
    readonly id: number,
    readonly shared: SharedArrayBuffer,
    private readonly parts: Part[],
    private readonly size: number | undefined,
    private readonly done: (hasher: ThreadedHasher) => void,
  ) {
    this.slots = new Uint8Array(shared);
    this.partsLeft = parts.length;
    for (const { thread } of parts) thread.track(this);
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
      this.unhashed[slot] = this.parts.length;
      this.post((open) => ({ op: 'update', id: this.id, slot, length: piece.length, open, last }));
      if (last) this.expectDigests();
    }
  }

  digest(): Promise<Record<string, string>> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.digests) {
      this.expectDigests();
      this.post((open) => ({ op: 'digest', id: this.id, open }));
    }
    return this.digests!;
  }

  drop(): void {
    this.fail(new Error('the stream was dropped'));
    // a stream that never sent anything is unknown to the threads
    for (const { thread } of this.parts) thread.drop(this, this.opened);
    this.done(this);
  }

  onReply(reply: Reply, thread: HashingThread): void {
    if (reply.slot !== undefined && --this.unhashed[reply.slot] === 0) {
      this.free.push(reply.slot);
      this.wake();
    }
    if (reply.op === 'digest') {
      thread.release(this);
      Object.assign(this.collected, reply.digests);
      if (--this.partsLeft === 0) {
        this.done(this);
        this.finishing?.resolve(this.collected);
      }
    } else if (reply.op === 'error') {
      this.fail(new Error(`hashing failed: ${reply.message}`));
    }
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.finishing?.reject(error);
    this.wake();
  }

  /** Sends one message to each part's thread; the first carries the opening of the part's share. */
  private post(message: (open: Opening | undefined) => Request): void {
    const opening = !this.opened;
    this.opened = true;
    for (const { thread, algorithms } of this.parts) {
      const open = opening ? { shared: this.shared, algorithms, size: this.size } : undefined;
      thread.post(message(open));
    }
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

/** One hashing thread and the streams it hashes a share of. */
class HashingThread {
  private worker: Worker | null = null;
  private readonly active = new Map<number, ThreadedHasher>();

  track(hasher: ThreadedHasher): void {
    this.active.set(hasher.id, hasher);
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
    // the thread keeps the process alive only while a stream is open
    if (this.active.size === 0) this.worker?.unref();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startHashingWorker(hashStreamsOnThread, {
      slotBytes: SLOT_BYTES,
      gitBlobSha1: GIT_BLOB_SHA1,
    });
    worker.on('message', (reply: Reply) => this.active.get(reply.id)?.onReply(reply, this));
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

/** A stream has at most this many algorithms to share out (the bag's three and a target's own). */
const MOST_SHARES = 4;

/**
 * The hashing threads, one per core up to MOST_SHARES (each started when first needed), and the streams'
 * slot buffers, kept for the next stream instead of being allocated anew.
 */
class StreamHashing {
  private readonly threads = Array.from(
    { length: Math.max(1, Math.min(availableParallelism(), MOST_SHARES)) },
    () => new HashingThread(),
  );
  private readonly spareBuffers: SharedArrayBuffer[] = [];
  private nextId = 0;

  open(algorithms: readonly string[], size: number | undefined): StreamHasher {
    const id = this.nextId++;
    const shared = this.spareBuffers.pop() ?? new SharedArrayBuffer(SLOT_BYTES * SLOTS);
    // a stream's heaviest share goes to a different thread than the previous stream's, to spread the load
    const parts = shareOut(algorithms, this.threads.length).map((share, i) => ({
      thread: this.threads[(id + i) % this.threads.length],
      algorithms: share,
    }));
    return new ThreadedHasher(id, shared, parts, size, (hasher) => this.recycle(hasher));
  }

  private recycle(hasher: ThreadedHasher): void {
    // a few spares cover the streams of a job that run at the same time
    if (this.spareBuffers.length < 8 && !this.spareBuffers.includes(hasher.shared))
      this.spareBuffers.push(hasher.shared);
  }
}

/** What hashing costs per algorithm on this machine, measured once each (CPU time of 2 MiB). */
const costs = new Map<string, number>();

function costOf(algorithm: string): number {
  const name = algorithm === GIT_BLOB_SHA1 ? 'sha1' : algorithm;
  let cost = costs.get(name);
  if (cost === undefined) {
    const sample = Buffer.alloc(1 << 20);
    createHash(name).update(sample).digest();
    const before = process.cpuUsage();
    createHash(name).update(sample).update(sample).digest();
    const { user, system } = process.cpuUsage(before);
    cost = user + system;
    costs.set(name, cost);
  }
  return cost;
}

/** `algorithms` in at most `threads` shares of about equal cost, the costliest share first. */
function shareOut(algorithms: readonly string[], threads: number): string[][] {
  const shares = Array.from({ length: Math.min(threads, algorithms.length) || 1 }, () => ({
    cost: 0,
    algorithms: [] as string[],
  }));
  for (const algorithm of [...algorithms].sort((a, b) => costOf(b) - costOf(a))) {
    const lightest = shares.reduce((least, share) => (share.cost < least.cost ? share : least));
    lightest.algorithms.push(algorithm);
    lightest.cost += costOf(algorithm);
  }
  return shares.sort((a, b) => b.cost - a.cost).map((share) => share.algorithms);
}

const hashing = new StreamHashing();
const KNOWN = new Set([...getHashes().map((name) => name.toLowerCase()), GIT_BLOB_SHA1]);

/**
 * A stream hasher on the hashing threads; throws at once for an algorithm it does not know. A git blob id
 * covers a header with the size, so `git-blob-sha1` needs the stream's `size`.
 */
export function createStreamHasher(algorithms: readonly string[], size?: number): StreamHasher {
  const unknown = algorithms.find((algorithm) => !KNOWN.has(algorithm.toLowerCase()));
  if (unknown) throw new Error(`Unknown hash algorithm: ${unknown}`);
  if (algorithms.includes(GIT_BLOB_SHA1) && size === undefined)
    throw new Error(`${GIT_BLOB_SHA1} needs the size of the stream`);
  return hashing.open(algorithms, size);
}
