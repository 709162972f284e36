import { getQueueToken } from '@nestjs/bull';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { ServiceError } from '@app/common';
import {
  isRedisUnavailable,
  JOB_KINDS,
  jobTarget,
  JobStore,
  ReplicaConfirmation,
  type JobKind,
  type JobRecord,
  type PayloadOf,
} from '@app/jobs';
import { currentRequestId, jobsStarted } from '@app/observability';

export const IN_PROGRESS_ERROR = 'User currently has processes in progress.';

/** Starts a job run: claims the user's slot atomically, then queues the work for a worker. */
@Injectable()
export class JobStarter implements OnModuleInit {
  private readonly queues = new Map<JobKind, Queue>();

  constructor(
    private readonly store: JobStore,
    private readonly moduleRef: ModuleRef,
    private readonly confirmation: ReplicaConfirmation,
  ) {}

  onModuleInit(): void {
    for (const kind of JOB_KINDS) {
      this.queues.set(kind, this.moduleRef.get<Queue>(getQueueToken(kind), { strict: false }));
    }
  }

  /**
   * `prepare` runs once the slot is claimed and before the job is queued (to hand files to the worker). If
   * either fails, the run ends as failed, so the slot is never left taken. A job is accepted once a replica
   * has its record and queue entry too (with Sentinel), so that a failover right after the 202 keeps it.
   */
  async start<K extends JobKind>(
    kind: K,
    ticket: string,
    payload: Omit<PayloadOf<K>, 'ticket' | 'runId'>,
    prepare?: (record: JobRecord<K>) => Promise<void>,
  ): Promise<JobRecord<K>> {
    const record = await this.store.start(kind, ticket);
    if (!record) throw ServiceError.badRequest(IN_PROGRESS_ERROR);
    try {
      await prepare?.(record);
      const data = { ...payload, ticket, runId: record.runId, requestId: currentRequestId() };
      const queue = this.queues.get(kind)!;
      await queue.add(data, { jobId: `${kind}:${ticket}:${record.runId}` });
      // the queue entry was written after the record: a replica that has it has both
      await this.confirmation.confirm(queue.client);
      jobsStarted.inc({ kind, target: jobTarget(data as PayloadOf<K>) });
      return record;
    } catch (error) {
      const message = `PresQT Error: the job could not be started: ${(error as Error).message}`;
      await this.store.endFailedWhenBack(record, { failureCode: 503, message });
      // a Redis that stopped answering is answered as everywhere else (503 with Retry-After)
      throw error instanceof ServiceError || isRedisUnavailable(error)
        ? error
        : new ServiceError(503, message);
    }
  }
}
