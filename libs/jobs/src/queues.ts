import { BullModule } from '@nestjs/bull';
import type { DynamicModule } from '@nestjs/common';
import type { AppConfig } from '@app/config';

/** The kinds of asynchronous job; each has its own Bull queue. */
export const JOB_KINDS = ['download', 'upload', 'transfer'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** Bull's connection and the queues, shared by the API (which adds jobs) and the worker (which runs them). */
export function jobQueuesModules(config: AppConfig): DynamicModule[] {
  return [
    BullModule.forRoot({ url: config.redisUrl, prefix: `${config.redisPrefix}:bull` }),
    BullModule.registerQueue(...JOB_KINDS.map((name) => ({ name }))),
  ];
}
