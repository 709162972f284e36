import { BullModule } from '@nestjs/bull';
import type { DynamicModule } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import type { AppConfig } from '@app/config';

/** The kinds of asynchronous job; each has its own Bull queue. */
export const JOB_KINDS = ['download', 'upload', 'transfer'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * Bull's connection and the queues, shared by the API (which adds jobs) and the worker (which runs them).
 * A worker that dies loses its lock after `jobLockMs`; another worker then runs the job again, and a job
 * that stalls three times fails.
 */
export function jobQueuesModules(config: AppConfig, redisOptions: RedisOptions = {}): DynamicModule[] {
  return [
    BullModule.forRoot({
      url: config.redisUrl,
      redis: redisOptions,
      prefix: `${config.redisPrefix}:bull`,
      settings: {
        lockDuration: config.jobLockMs,
        lockRenewTime: Math.floor(config.jobLockMs / 3),
        stalledInterval: config.jobLockMs,
        maxStalledCount: 2,
      },
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
    }),
    BullModule.registerQueue(...JOB_KINDS.map((name) => ({ name }))),
  ];
}
