import {
  DynamicModule,
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import { ProcessSettings, type LoadedSettings } from '@app/config';
import { JOB_KINDS } from '@app/job-kinds';
import { JobSettings } from './job.settings';
import { JobStore } from './job-store';
import { jobQueuesModules } from './queues';
import { RedisConnections, type RedisWaiting } from './redis-connections';
import { checkRedisDurability } from './redis-durability';
import { RedisSettings } from './redis.settings';
import { ReplicaConfirmation } from './replica-confirmation';
import { TokenCipher } from './tickets';

/** The process's Redis connection, for other modules that keep state beside the jobs (under REDIS_PREFIX). */
export const REDIS_CLIENT = Symbol('redis-client');

/** The longest wait for a replica to confirm a job's start or end (see ReplicaConfirmation). */
const REPLICA_CONFIRMATION_MS = 500;

/** Job records, token encryption and the queues, for the API and the worker alike. */
@Global()
@Module({})
export class JobsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly connections: RedisConnections,
    private readonly moduleRef: ModuleRef,
  ) {}

  static forRoot(settings: LoadedSettings, waiting: RedisWaiting = {}): DynamicModule {
    const redis = settings.get(RedisSettings);
    const jobs = settings.get(JobSettings);
    const connections = new RedisConnections(redis.address, waiting);
    const queues = jobQueuesModules(redis, jobs, connections);
    // a confirmation must come back before the API's command timeout
    const confirmationMs = Math.min(REPLICA_CONFIRMATION_MS, (waiting.commandTimeoutMs ?? Infinity) / 2);
    return {
      module: JobsModule,
      imports: queues,
      providers: [
        { provide: RedisConnections, useValue: connections },
        { provide: REDIS_CLIENT, useFactory: () => connections.open() },
        {
          provide: ReplicaConfirmation,
          useValue: new ReplicaConfirmation(connections.replicated, Math.floor(confirmationMs)),
        },
        {
          provide: JobStore,
          inject: [REDIS_CLIENT, ReplicaConfirmation],
          useFactory: (client: Redis, confirmation: ReplicaConfirmation) =>
            new JobStore(client, redis.prefix, jobs.ttlSeconds, confirmation),
        },
        { provide: TokenCipher, useFactory: () => new TokenCipher(settings.get(ProcessSettings).secretKey) },
      ],
      exports: [REDIS_CLIENT, RedisConnections, ReplicaConfirmation, JobStore, TokenCipher, ...queues],
    };
  }

  /** Warns about Redis settings under which Redis may lose jobs, once connected (not holding the start up). */
  onApplicationBootstrap(): void {
    void checkRedisDurability(this.redis, this.logger);
  }

  /** The queues close first (Bull closes none of the connections it was given), then every connection. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      JOB_KINDS.map((kind) => this.moduleRef.get<Queue>(getQueueToken(kind), { strict: false }).close()),
    );
    await this.connections.closeAll();
  }
}
