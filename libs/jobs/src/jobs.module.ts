import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import { AppConfig } from '@app/config';
import { JobStore } from './job-store';
import { jobQueuesModules } from './queues';
import { TokenCipher } from './tickets';

/** The process's Redis connection, for other modules that keep state beside the jobs (under REDIS_PREFIX). */
export const REDIS_CLIENT = Symbol('redis-client');

/**
 * How a process waits for Redis: the API gives up on a command after `commandTimeoutMs` (and answers 503)
 * rather than hang its clients; the worker leaves it unset, as Bull's blocking reads wait by design.
 */
export interface RedisWaiting {
  commandTimeoutMs?: number;
}

/** Job records, token encryption and the queues, for the API and the worker alike. */
@Global()
@Module({})
export class JobsModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  static forRoot(config: AppConfig, waiting: RedisWaiting = {}): DynamicModule {
    const redisOptions: RedisOptions = { commandTimeout: waiting.commandTimeoutMs };
    const queues = jobQueuesModules(config, redisOptions);
    return {
      module: JobsModule,
      imports: queues,
      providers: [
        {
          provide: REDIS_CLIENT,
          useFactory: () => new Redis(config.redisUrl, { ...redisOptions, maxRetriesPerRequest: 3 }),
        },
        {
          provide: JobStore,
          inject: [REDIS_CLIENT],
          useFactory: (redis: Redis) => new JobStore(redis, config.redisPrefix, config.jobTtlSeconds),
        },
        { provide: TokenCipher, useFactory: () => new TokenCipher(config.secretKey) },
      ],
      exports: [REDIS_CLIENT, JobStore, TokenCipher, ...queues],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
