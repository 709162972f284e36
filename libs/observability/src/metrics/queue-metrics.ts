import { getQueueToken } from '@nestjs/bull';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { Gauge } from 'prom-client';
import { JOB_KINDS } from '@app/jobs';

/** How many jobs wait, run and are delayed in each queue, read from Redis at each scrape. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const queues = JOB_KINDS.map(
      (kind) => [kind, this.moduleRef.get<Queue>(getQueueToken(kind), { strict: false })] as const,
    );
    new Gauge({
      name: 'presqt_queue_jobs',
      help: 'Jobs in the queues (all workers), by kind and state (waiting, active, delayed)',
      labelNames: ['kind', 'state'] as const,
      async collect() {
        for (const [kind, queue] of queues) {
          const counts = await queue.getJobCounts();
          for (const state of ['waiting', 'active', 'delayed'] as const)
            this.set({ kind, state }, counts[state]);
        }
      },
    });
  }
}
