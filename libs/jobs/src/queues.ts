import { BullModule } from '@nestjs/bull';
import type { DynamicModule } from '@nestjs/common';
import { JOB_KINDS } from '@app/job-kinds';
import type { JobSettings } from './job.settings';
import type { RedisConnections } from './redis-connections';
import type { RedisSettings } from './redis.settings';

/**
 * Bull's timings, so that a job whose worker died is taken over within `jobLockMs`: the dead worker's last
 * lock lapses after `lockDuration`, and a stalled check (which hands the job to another worker) follows
 * within two `stalledInterval`s (a check finds the previous one's guard key still there when their timers
 * meet to the millisecond, and waits for the next). A live worker renews its lock three times per lock.
 * A job that stalls three times fails.
 */
export function lockSettings(jobLockMs: number) {
  const stalledInterval = Math.floor(jobLockMs / 20);
  const lockDuration = jobLockMs - 2 * stalledInterval;
  return {
    lockDuration,
    lockRenewTime: Math.floor(lockDuration / 3),
    stalledInterval,
    maxStalledCount: 2,
  };
}

/**
 * The queues, shared by the API (which adds jobs) and the worker (which runs them). Bull takes its
 * connections from `connections` (which closes them: JobsModule does, after the queues).
 * A worker that dies has its job taken over by another within `jobLockMs` (see lockSettings).
 */
export function jobQueuesModules(
  redis: RedisSettings,
  jobs: JobSettings,
  connections: RedisConnections,
): DynamicModule[] {
  return [
    BullModule.forRoot({
      createClient: (type) => connections.open(type === 'client' ? 'commands' : 'blocking'),
      prefix: `${redis.prefix}:bull`,
      settings: lockSettings(jobs.lockMs),
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: 100 },
    }),
    BullModule.registerQueue(...JOB_KINDS.map((name) => ({ name }))),
  ];
}
