import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { JobStore } from './job-store';
import { jobQueuesModules } from './queues';
import { TokenCipher } from './tickets';

const REDIS = Symbol('jobs-redis');

/** Job records, token encryption and the queues, for the API and the worker alike. */
@Global()
@Module({})
export class JobsModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  static forRoot(config: AppConfig): DynamicModule {
    const queues = jobQueuesModules(config);
    return {
      module: JobsModule,
      imports: queues,
      providers: [
        { provide: REDIS, useFactory: () => new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) },
        {
          provide: JobStore,
          inject: [REDIS],
          useFactory: (redis: Redis) => new JobStore(redis, config.redisPrefix, config.jobTtlSeconds),
        },
        { provide: TokenCipher, useFactory: () => new TokenCipher(config.secretKey) },
      ],
      exports: [JobStore, TokenCipher, ...queues],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
