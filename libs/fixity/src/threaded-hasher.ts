import { createHash, getHashes } from 'node:crypto';
import type * as Crypto from 'node:crypto';
import { GIT_BLOB_SHA1 } from './algorithms';
import { createMultiHasher, type MultiHasher } from './hash';
import type { ThreadModules } from './hashing-worker';
import { hashingThreads, type HashingThread } from './hashing-threads';

/**
 * Hashing streamed bytes on threads of their own. A job's main thread also reads, zips, checksums (CRC) and
 * writes every byte; with md5, sha256 and sha512 on top it ran out of CPU long before the disk did. Here each
 * chunk is copied into a slot of a shared buffer and hashed by the threads, so hashing and the rest overlap.
 * A stream's algorithms are shared out among the hashing threads (each digest is serial: md5 and sha512 on
 * one thread took a download's whole time on their own). Slots are few, so a producer that outruns the
 * threads waits (memory stays bounded).
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

type Request = { family: 'stream' } & (
  | { op: 'update'; id: number; slot: number; length: number; open?: Opening; last: boolean }
  | { op: 'digest'; id: number; open?: Opening }
  | { op: 'drop'; id: number }
);

type StreamReply =
  | { op: 'free'; id: number; slot: number }
  | { op: 'digest'; id: number; digests: Record<string, string>; slot?: number }
  | { op: 'error'; id: number; message: string; slot?: number };

type Reply = { family: 'stream' } & StreamReply;

/** The thread's program: one set of digests per open stream, fed from the stream's slots. */
function hashStreamsOnThread(
  { port, crypto }: ThreadModules,
  { slotBytes, gitBlobSha1 }: ThreadSettings,
): void {
  const hashers = new Map<number, { slots: Uint8Array; hashes: Crypto.Hash[]; algorithms: string[] }>();
  const reply = (message: StreamReply) => port.postMessage({ ...message, family: 'stream' });
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
  port.on('message', (message: Request | { family: 'file' }) => {
    if (message.family !== 'stream') return;
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
  /** the threads still holding a part of the stream (not yet digested, dropped or failed) */
  private readonly holding: Set<HashingThread>;
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
    this.holding = new Set(parts.map(({ thread }) => thread));
  }

  uses(thread: HashingThread): boolean {
    return this.parts.some((part) => part.thread === thread);
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
      this.post((open) => ({
        family: 'stream',
        op: 'update',
        id: this.id,
        slot,
        length: piece.length,
        open,
        last,
      }));
      if (last) this.expectDigests();
    }
  }

  digest(): Promise<Record<string, string>> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.digests) {
      this.expectDigests();
      this.post((open) => ({ family: 'stream', op: 'digest', id: this.id, open }));
    }
    return this.digests!;
  }

  drop(): void {
    // a stream that never sent anything is unknown to the threads; one a thread let go of needs no message
    for (const thread of this.holding)
      if (this.opened) thread.post({ family: 'stream', op: 'drop', id: this.id });
    // an update still waiting for a slot fails rather than send its chunk after the drop; the threads go
    this.fail(new Error('the stream was dropped'));
  }

  onReply(reply: Reply, thread: HashingThread): void {
    if (reply.slot !== undefined && --this.unhashed[reply.slot] === 0) {
      this.free.push(reply.slot);
      this.wake();
    }
    if (reply.op === 'digest') {
      if (this.holding.delete(thread)) thread.release();
      Object.assign(this.collected, reply.digests);
      if (this.holding.size === 0) {
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
    this.letGo();
  }

  /** Releases every thread still holding a part, and forgets the stream. */
  private letGo(): void {
    for (const thread of this.holding) thread.release();
    this.holding.clear();
    this.done(this);
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

/**
 * The streams being hashed, by id, with the slot buffers kept for the next stream instead of being allocated
 * anew; each stream's parts go to the shared hashing threads.
 */
class StreamHashing {
  private readonly streams = new Map<number, ThreadedHasher>();
  private readonly spareBuffers: SharedArrayBuffer[] = [];
  private nextId = 0;

  open(algorithms: readonly string[], size: number | undefined): StreamHasher {
    const id = this.nextId++;
    const shared = this.spareBuffers.pop() ?? new SharedArrayBuffer(SLOT_BYTES * SLOTS);
    // a stream's heaviest share goes to a different thread than the previous stream's, to spread the load
    const parts = shareOut(algorithms, hashingThreads.count).map((share, i) => ({
      thread: hashingThreads.at(id + i),
      algorithms: share,
    }));
    const hasher = new ThreadedHasher(id, shared, parts, size, () => this.forget(hasher));
    this.streams.set(id, hasher);
    for (const { thread } of parts) thread.hold();
    return hasher;
  }

  reply(reply: Reply, thread: HashingThread): void {
    this.streams.get(reply.id)?.onReply(reply, thread);
  }

  /** A thread died: every stream with a part on it fails. */
  failed(error: Error, thread: HashingThread): void {
    for (const hasher of [...this.streams.values()]) if (hasher.uses(thread)) hasher.fail(error);
  }

  private forget(hasher: ThreadedHasher): void {
    if (!this.streams.delete(hasher.id)) return;
    // a few spares cover the streams of a job that run at the same time
    if (this.spareBuffers.length < 8) this.spareBuffers.push(hasher.shared);
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
export function shareOut(algorithms: readonly string[], threads: number): string[][] {
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

/**
 * Streams of a known size up to this many bytes are hashed on the calling thread: on the hashing threads
 * such a file cost more CPU in messages and thread wake-ups than in its digests (md5 and sha256 of 16 KiB:
 * 124-292 µs a file on the threads, 35-48 here; md5, sha256 and sha512 of 64 KiB: 369-457 and 217-233).
 */
const INLINE_BYTES = 64 << 10;

/** A small stream's digests, computed as its chunks come (see INLINE_BYTES). */
class InlineHasher implements StreamHasher {
  private readonly hasher: MultiHasher;
  private bytes = 0;
  private dropped = false;
  private digests: Promise<Record<string, string>> | null = null;

  constructor(
    algorithms: readonly string[],
    private readonly size: number,
  ) {
    this.hasher = createMultiHasher(algorithms, size);
  }

  update(chunk: Buffer): Promise<void> {
    if (this.dropped) return Promise.reject(new Error('the stream was dropped'));
    // as on the threads: a chunk after the announced size was reached
    if (this.bytes === this.size && chunk.length > 0)
      return Promise.reject(new Error(`the stream holds more than the ${this.size} bytes announced`));
    this.bytes += chunk.length;
    this.hasher.update(chunk);
    return Promise.resolve();
  }

  digest(): Promise<Record<string, string>> {
    if (this.dropped) return Promise.reject(new Error('the stream was dropped'));
    this.digests ??= Promise.resolve(this.hasher.digest());
    return this.digests;
  }

  drop(): void {
    this.dropped = true;
  }
}

const hashing = new StreamHashing();
hashingThreads.register(
  'stream',
  hashStreamsOnThread,
  { slotBytes: SLOT_BYTES, gitBlobSha1: GIT_BLOB_SHA1 },
  hashing,
);
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
  if (size !== undefined && size <= INLINE_BYTES) return new InlineHasher(algorithms, size);
  return hashing.open(algorithms, size);
}

/** The digests of a stream's bytes, read to its end on the hashing threads; the hasher is dropped on failure. */
export async function digestStream(
  stream: AsyncIterable<unknown>,
  algorithms: readonly string[],
  size?: number,
): Promise<Record<string, string>> {
  const hasher = createStreamHasher(algorithms, size);
  try {
    for await (const chunk of stream) await hasher.update(chunk as Buffer);
  } catch (error) {
    hasher.drop();
    throw error;
  }
  return hasher.digest();
}
