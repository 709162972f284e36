import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startHashingWorker, type ThreadBody } from './hashing-worker';

/**
 * The process's hashing threads, shared by streamed bytes (threaded-hasher.ts) and whole files and copies
 * (hash-pool.ts): each thread runs both programs, every message going to the one whose `family` it names. One
 * set rather than one per use: a thread costs about 9 MiB of resident memory here.
 */
export interface FamilyMessage {
  family: 'stream' | 'file';
}

/** Who sends one family of messages: told of each reply of that family and of a thread that died. */
export interface FamilyHandler<Reply extends FamilyMessage> {
  reply(reply: Reply, thread: HashingThread): void;
  failed(error: Error, thread: HashingThread): void;
}

/** One hashing thread, started when first used, holding the process alive only while work is pending on it. */
export class HashingThread {
  private worker: Worker | null = null;
  private pending = 0;

  constructor(private readonly threads: HashingThreads) {}

  /** Sends `message`; the thread holds the process until as many release() calls as hold() calls. */
  post<Message extends FamilyMessage>(message: Message): void {
    const worker = this.started();
    worker.ref();
    worker.postMessage(message);
  }

  hold(): void {
    this.pending++;
  }

  release(): void {
    this.pending = Math.max(0, this.pending - 1);
    if (this.pending === 0) this.worker?.unref();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = this.threads.start();
    worker.on('message', (reply: FamilyMessage) => this.threads.handler(reply.family).reply(reply, this));
    const failAll = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.pending = 0;
      for (const family of ['stream', 'file'] as const) this.threads.handler(family).failed(error, this);
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the hashing thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

/** The threads, and the programs and handlers of both families. */
export class HashingThreads {
  private readonly threads: HashingThread[] = [];
  private readonly programs: { body: ThreadBody<unknown>; settings: unknown }[] = [];
  private readonly handlers = new Map<string, FamilyHandler<FamilyMessage>>();
  private size = Math.min(2, availableParallelism());

  /** A family's program (run on every thread) and the handler of its replies. */
  register<Settings, Reply extends FamilyMessage>(
    family: FamilyMessage['family'],
    body: ThreadBody<Settings>,
    settings: Settings,
    handler: FamilyHandler<Reply>,
  ): void {
    this.programs.push({ body: body as ThreadBody<unknown>, settings });
    this.handlers.set(family, handler);
  }

  handler(family: FamilyMessage['family']): FamilyHandler<FamilyMessage> {
    return this.handlers.get(family)!;
  }

  /** How many threads there are; at least one, at most the cores. */
  resize(size: number): void {
    this.size = Math.max(1, Math.min(size, availableParallelism()));
  }

  get count(): number {
    return this.size;
  }

  /** The thread `index` (modulo the count). */
  at(index: number): HashingThread {
    const slot = index % this.size;
    return (this.threads[slot] ??= new HashingThread(this));
  }

  start(): Worker {
    // both families' modules register when @app/fixity is loaded, before any thread can start
    if (this.handlers.size < 2) throw new Error('a hashing thread started before both programs were known');
    return startHashingWorker(this.programs);
  }
}

export const hashingThreads = new HashingThreads();
