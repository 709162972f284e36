import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type Redis from 'ioredis';
import { ProcessSettings } from '@app/config';
import { REDIS_CLIENT } from '@app/jobs';
import { TargetsRegistry } from '@app/targets';

/** How long a readiness probe waits for Redis: an orchestrator's probe must not hang with it. */
const REDIS_PROBE_MS = 1000;

/** What a process needs to do its work: Redis answering, a writable data directory, its targets. */
@Injectable()
export class Readiness {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly settings: ProcessSettings,
    private readonly targets: TargetsRegistry,
  ) {}

  async redisAnswers(): Promise<HealthIndicatorResult> {
    const redis = this.indicators.check('redis');
    // no primary connected (lost, or a failover under way): no need to wait for the ping
    if (this.redis.status !== 'ready') return redis.down({ message: `not connected (${this.redis.status})` });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${REDIS_PROBE_MS} ms`)), REDIS_PROBE_MS);
    });
    try {
      await Promise.race([this.redis.ping(), timeout]);
      return redis.up();
    } catch (error) {
      return redis.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }

  async dataDirWritable(): Promise<HealthIndicatorResult> {
    const dataDir = this.indicators.check('data_dir');
    const probe = join(this.settings.dataDir, `.health-${randomUUID()}`);
    try {
      await mkdir(this.settings.dataDir, { recursive: true });
      await writeFile(probe, 'ok');
      await rm(probe, { force: true });
      return dataDir.up();
    } catch (error) {
      // the code (EACCES, ENOSPC) says what is wrong without naming the server's paths
      return dataDir.down({ message: (error as NodeJS.ErrnoException).code ?? 'not writable' });
    }
  }

  targetsLoaded(): HealthIndicatorResult {
    const targets = this.indicators.check('targets');
    const count = this.targets.targets.length;
    return count > 0 ? targets.up({ count }) : targets.down({ message: 'no targets loaded' });
  }
}
