import { ServiceError } from '@app/common';
import { JobStore, percentageOf, type JobFailure, type JobProgress, type JobRecord } from '@app/jobs';
import { bytesMoved, filesMoved } from '@app/observability';
import { RunStateMachine, type RunEvent, type RunState } from './run-state';

/** How often progress is written, or, with nothing to write, the record checked for a cancel. */
const TICK_MS = 400;

/** Thrown inside a job once the user has cancelled it, so the handler unwinds and cleans up. */
export class JobCancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** A worker's lease on carrying out a run (JobStore.holdRun), renewed while the run goes on. */
export interface RunLease {
  holder: string;
  ttlMs: number;
}

/**
 * What a running job sees of its record: progress reporting (batched, so a job with many small files does
 * not write to Redis for each one), and a signal that fires within a second of a cancel from any API process.
 * It holds the run's state (RunStateMachine), which what it learns of the run moves.
 */
export class JobContext {
  private readonly controller = new AbortController();
  private readonly run = new RunStateMachine('running', () => this.controller.abort());
  private readonly progress: Omit<JobProgress, 'percent'> = {
    filesTotal: 0,
    filesDone: 0,
    bytesTotal: 0,
    bytesDone: 0,
  };
  private message: string | undefined;
  private dirty = false;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private lastChecked = 0;
  private readonly leaseTimer: NodeJS.Timeout;

  constructor(
    private readonly store: JobStore,
    readonly record: JobRecord,
    lease: RunLease,
  ) {
    this.timer = setInterval(() => {
      this.flushing = (this.dirty ? this.flush() : this.checkStillRunning()).catch(() => undefined);
    }, TICK_MS);
    // renewed as often as Bull renews its lock, so that the lease lapses no later than the lock does
    this.leaseTimer = setInterval(() => {
      // another worker holds it now (this one's lapsed, for example while Redis did not answer)
      this.store.holdRun(record, lease.holder, lease.ttlMs).then(
        (held) => void (held || this.move('leaseLost')),
        () => undefined,
      );
    }, lease.ttlMs / 3);
  }

  get state(): RunState {
    return this.run.state;
  }

  /** Moves the run's state (see RunStateMachine); a state in which the handler must stop fires the signal. */
  move(event: RunEvent): RunState {
    return this.run.move(event);
  }

  /**
   * What the run wrote stays, for the run that carries it on: the worker is handing it back (it stops at its
   * next checkpoint as for a cancel, but the job is not ended), or another worker holds it now.
   */
  get keepsWrites(): boolean {
    return this.state === 'handing-back' || this.state === 'superseded';
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Throws JobCancelled when the job has been cancelled (as far as the last check knows). */
  throwIfCancelled(): void {
    if (this.signal.aborted) throw new JobCancelled();
  }

  /**
   * Asks the store now (at most every 100 ms) and throws JobCancelled when the job was cancelled: called
   * before each file and before final writes, so a cancel is not outrun by many small files.
   */
  async checkCancelled(): Promise<void> {
    if (Date.now() - this.lastChecked >= 100) await this.checkStillRunning();
    this.throwIfCancelled();
  }

  /**
   * The run's point of no return, just before it commits what it wrote (JobStore.beginCommit): throws
   * JobCancelled when the user is cancelling it, and a cancel comes too late once this has returned.
   */
  async beginCommit(): Promise<void> {
    this.move((await this.store.beginCommit(this.record)) ? 'commit' : 'stop');
    this.throwIfCancelled();
  }

  setTotals(files: number, bytes: number): void {
    this.progress.filesTotal = files;
    this.progress.bytesTotal = bytes;
    this.dirty = true;
  }

  addBytes(bytes: number): void {
    this.progress.bytesDone += bytes;
    bytesMoved.inc({ kind: this.record.kind }, bytes);
    this.dirty = true;
  }

  fileFinished(): void {
    this.progress.filesDone += 1;
    filesMoved.inc({ kind: this.record.kind });
    this.dirty = true;
  }

  setMessage(message: string): void {
    this.message = message;
    this.dirty = true;
  }

  /** Writes pending progress now; a refused write means the run is being cancelled, or was superseded. */
  async flush(): Promise<void> {
    this.dirty = false;
    const still = await this.store.update(this.record, {
      ...this.progress,
      percent: percentageOf(this.progress),
      ...(this.message === undefined ? {} : { message: this.message }),
    });
    if (!still) this.move('stop');
  }

  /** Stops the timers; pending progress is dropped (the job is ending). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.leaseTimer);
    await this.flushing;
  }

  private async checkStillRunning(): Promise<void> {
    this.lastChecked = Date.now();
    const current = await this.store.get(this.record.kind, this.record.ticket);
    if (
      !current ||
      current.runId !== this.record.runId ||
      (current.state !== 'running' && current.state !== 'committing')
    ) {
      this.move('stop');
    }
  }
}

/** The status code and message a failed job reports: the target's own for its errors, else 500. */
export function failureOf(error: unknown): JobFailure {
  if (error instanceof ServiceError) return { failureCode: error.status, message: error.message };
  // a system error's message names the server's own paths: the user is told its code, the log the rest
  const system = error as NodeJS.ErrnoException | undefined;
  if (typeof system?.code === 'string' && system.syscall !== undefined)
    return { failureCode: 500, message: `The job failed on the server (${system.code}).` };
  return { failureCode: 500, message: `The job failed: ${system?.message ?? String(error)}` };
}
