import { MAX_CHECKPOINTS, type JobStore } from '@app/jobs';
import type { JobContext } from './job-context';

/**
 * A run's finished files remembered in groups (JobStore.checkpoint), one write at a time: the checkpoints of
 * files that finish while a write is on its way (or in the same turn of the event loop) go together in the
 * next. A job of many small files then writes to Redis, which every worker of every host shares, less than
 * once a file, and its next file does not wait for Redis. A checkpoint waits no longer than the write before
 * it: a killed run leaves as few files written but not remembered (which a resumed run writes again, and a
 * cancel cannot take back) as when each file waited for its own. A file counts as finished in the job's
 * progress once its checkpoint is written: a resumed run never writes again a file the user saw counted.
 */
export class CheckpointQueue {
  private waiting = new Map<string, unknown>();
  private turn: NodeJS.Immediate | null = null;
  private writing: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly store: JobStore,
    private readonly context: JobContext,
  ) {}

  /** Queues the checkpoint of a finished file; throws when an earlier write failed. */
  add(item: string, data: unknown): void {
    if (this.failure) throw this.failure.error;
    this.waiting.set(item, data);
    this.turn ??= setImmediate(() => this.send());
  }

  /** Writes what is queued, after any write under way; throws when a write failed. */
  async flush(): Promise<void> {
    this.send();
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure.error;
  }

  /** Starts writing what waits, unless a write is under way: that one takes what waits when it ends. */
  private send(): void {
    if (this.turn) clearImmediate(this.turn);
    this.turn = null;
    this.writing ??= this.writeWaiting().finally(() => {
      this.writing = null;
      // queued after the loop's last look
      if (this.waiting.size > 0 && !this.failure) this.send();
    });
  }

  private async writeWaiting(): Promise<void> {
    while (this.waiting.size > 0 && !this.failure) {
      const group = new Map([...this.waiting].slice(0, MAX_CHECKPOINTS));
      for (const item of group.keys()) this.waiting.delete(item);
      try {
        await this.store.checkpoint(this.context.record, group);
        for (let file = 0; file < group.size; file++) this.context.fileFinished();
      } catch (error) {
        this.failure = { error };
      }
    }
  }
}
