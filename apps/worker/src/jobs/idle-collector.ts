import { Logger } from '@nestjs/common';

/**
 * Gives a job's memory back once the worker has no job left: V8 collects an idle process's heap only when
 * it next allocates, so without a collection the garbage of a large job (and the allocator pages behind it)
 * stays resident until the next job. Needs `node --expose-gc`, as scripts/start-app.sh starts the worker
 * (docs/memory.md); without it this does nothing.
 */
export class IdleCollector {
  private running = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly collect: (() => void) | undefined = globalThis.gc,
    private readonly delayMs = 1000,
  ) {}

  /** Runs `job`, and collects once no job has run for `delayMs` after it. */
  async around<T>(job: () => Promise<T>): Promise<T> {
    this.running++;
    clearTimeout(this.timer);
    try {
      return await job();
    } finally {
      if (--this.running === 0 && this.collect)
        this.timer = setTimeout(() => this.collectNow(), this.delayMs);
    }
  }

  private collectNow(): void {
    if (this.running > 0 || !this.collect) return;
    const before = process.memoryUsage().rss;
    this.collect();
    const after = process.memoryUsage().rss;
    new Logger('IdleCollector').debug(`collected after the last job: rss ${mib(before)} → ${mib(after)} MiB`);
  }
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
