import { join } from 'node:path';
import { getQueueToken } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { ProcessSettings } from '@app/config';
import { JOB_KINDS, JobSettings, JobStore, type JobRecord } from '@app/jobs';
import { directories, JobFiles, removeAbandonedUploads, removeOtherRuns } from '@app/job-files';
import { gaveUpMessage } from './job-runner';

const LOST_RUN_MESSAGE =
  'The job was lost before it could finish (no queue holds it any more); please start it again.';

/**
 * Housekeeping any worker may do, every JOB_SWEEP_MS:
 * - removes job files whose record has expired or been replaced (docs/behaviour.md#job-files): a run's files live exactly as
 *   long as its record, so no worker needs to remember what it wrote;
 * - removes uploads an API process was receiving when it died (older than a job's lifetime);
 * - fails runs that are in progress but that no queue holds (an API process died between claiming the user's
 *   slot and queueing the job), so that no job stays in progress for ever (docs/behaviour.md#one-job-per-kind).
 */
@Injectable()
export class JobJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('JobJanitor');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly processSettings: ProcessSettings,
    private readonly jobs: JobSettings,
    private readonly store: JobStore,
    private readonly moduleRef: ModuleRef,
    private readonly files: JobFiles,
  ) {}

  onApplicationBootstrap(): void {
    const sweep = () =>
      void Promise.all([this.removeStaleFiles(), this.removeAbandonedUploads(), this.failLostRuns()]).catch(
        (error: Error) => this.logger.warn(`housekeeping failed: ${error.message}`),
      );
    sweep();
    this.timer = setInterval(sweep, this.jobs.sweepMs);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Stale runs' directories on this host, and their files in the job-file store (the same with the local one). */
  async removeStaleFiles(): Promise<void> {
    for (const kind of JOB_KINDS) {
      const kindDir = join(this.processSettings.dataDir, 'jobs', kind);
      const tickets = new Set(await directories(kindDir));
      for await (const ticket of this.files.tickets(kind)) tickets.add(ticket);
      for (const ticket of tickets) {
        const current = async () => (await this.store.get(kind, ticket))?.runId;
        await removeOtherRuns(this.files, join(kindDir, ticket), { kind, ticket }, current);
      }
    }
  }

  async removeAbandonedUploads(): Promise<void> {
    await removeAbandonedUploads(this.processSettings.dataDir, this.jobs.ttlSeconds * 1000);
  }

  async failLostRuns(): Promise<void> {
    for await (const record of this.store.inProgress()) {
      // a run is queued within milliseconds of its start; give it a lock's length before judging
      if (Date.now() - Date.parse(record.createdAt) < this.jobs.lockMs) continue;
      const message = await this.lostMessage(record);
      if (message && (await this.store.endFailed(record, { failureCode: 500, message }))) {
        this.logger.warn(`failed lost ${record.kind} job ${record.runId}`);
      }
    }
  }

  /** Why an in-progress run is lost; null while a queue still holds it (or its failure is being reported). */
  private async lostMessage(record: JobRecord): Promise<string | null> {
    const queue = this.moduleRef.get<Queue>(getQueueToken(record.kind), { strict: false });
    const job = await queue.getJob(`${record.kind}:${record.ticket}:${record.runId}`);
    if (!job) return LOST_RUN_MESSAGE;
    const state = await job.getState();
    if (state === 'completed') return LOST_RUN_MESSAGE;
    if (state !== 'failed') return null;
    // the runner reports a job Bull gave up on (and emails the user); step in only if that never happened
    if (Date.now() - (job.finishedOn ?? 0) < this.jobs.lockMs) return null;
    return gaveUpMessage(job.failedReason ?? 'unknown reason');
  }
}
