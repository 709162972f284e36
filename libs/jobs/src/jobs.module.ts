import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { JobStore } from './job-store';
import { jobQueuesModules } from './queues';
import { TokenCipher } from './tickets';

/** The process's Redis connection, for other modules that keep state beside the jobs (under REDIS_PREFIX). */
export const REDIS_CLIENT = Symbol('redis-client');

/** Job records, token encryption and the queues, for the API and the worker alike. */
@Global()
@Module({})
export class JobsModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  static forRoot(config: AppConfig): DynamicModule {
    const queues = jobQueuesModules(config);
    return {
      module: JobsModule,
      imports: queues,
      providers: [
        { provide: REDIS_CLIENT, useFactory: () => new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) },
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
