import { opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { JOB_KINDS, JobStore } from '@app/jobs';

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * Removes job files whose record has expired or been replaced (decision 13). A run's files live exactly as
 * long as its record, so any worker can sweep and none needs to remember what it wrote.
 */
@Injectable()
export class JobFilesSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('JobFilesSweeper');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly config: AppConfig,
    private readonly store: JobStore,
  ) {}

  onApplicationBootstrap(): void {
    const sweep = () =>
      void this.sweep().catch((error: Error) => this.logger.warn(`sweep failed: ${error.message}`));
    sweep();
    this.timer = setInterval(sweep, SWEEP_EVERY_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Returns how many run directories were removed. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const kind of JOB_KINDS) {
      const kindDir = join(this.config.dataDir, 'jobs', kind);
      for (const ticket of await directories(kindDir)) {
        const record = await this.store.get(kind, ticket);
        for (const run of await directories(join(kindDir, ticket))) {
          if (record?.run_id === run) continue;
          await rm(join(kindDir, ticket, run), { recursive: true, force: true });
          removed += 1;
        }
      }
    }
    return removed;
  }
}

async function directories(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(dir)) if (entry.isDirectory()) names.push(entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return names;
}
