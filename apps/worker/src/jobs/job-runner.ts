import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import { getQueueToken } from '@nestjs/bull';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, Queue } from 'bull';
import { ProcessSettings } from '@app/config';
import { JobFiles, removeOtherRuns, runDir } from '@app/job-files';
import {
  cancelledEnd,
  jobTarget,
  JobSettings,
  JobStore,
  lockSettings,
  type JobEnd,
  type JobKind,
  type JobPayload,
  type JobRecord,
} from '@app/jobs';
import { jobEndedMessage, Mailer } from '@app/mail';
import { fixityFailures, jobDuration, jobsEnded, jobsRunning, withLogContext } from '@app/observability';
import { WorkerSettings } from '../worker.settings';
import { IdleCollector } from './idle-collector';
import { failureOf, JobContext, type RunLease } from './job-context';
import { JOB_HANDLERS, type JobHandler, type JobOutcome } from './job-handler';

/**
 * Consumes the queues: runs each job through its handler, records how it ended, removes what a cancelled
 * or failed run left behind, and emails the user when they asked for it (docs/behaviour.md#email).
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobRunner');
  private readonly collector = new IdleCollector();
  /** set on SIGTERM: running jobs are handed back, and none is started */
  private stopping = false;
  private readonly queues: Queue<JobPayload>[] = [];
  /** the runs going on, to hand back when the worker stops */
  private readonly contexts = new Set<JobContext>();
  private readonly runs = new Set<Promise<void>>();
  /** jobs handed back, until they are queued again (their Bull job failed first, then is retried) */
  private readonly requeues = new Map<string, { queued: Promise<void>; done: () => void }>();

  constructor(
    @Inject(JOB_HANDLERS) private readonly handlers: JobHandler[],
    private readonly moduleRef: ModuleRef,
    private readonly store: JobStore,
    private readonly processSettings: ProcessSettings,
    private readonly jobs: JobSettings,
    private readonly worker: WorkerSettings,
    private readonly mailer: Mailer,
    private readonly files: JobFiles,
  ) {}

  onApplicationBootstrap(): void {
    for (const handler of this.handlers) {
      const queue = this.moduleRef.get<Queue<JobPayload>>(getQueueToken(handler.kind), { strict: false });
      this.queues.push(queue);
      // process() settles only when the queue closes; a close during start-up must not crash the worker.
      // Bull rejects it with nothing at all when the queue closes before its first job.
      queue
        .process(this.worker.jobConcurrency, (job) => this.collector.around(() => this.tracked(handler, job)))
        .catch((error: unknown) => {
          if (error instanceof Error) this.logger.warn(`${handler.kind} queue stopped: ${error.message}`);
        });
      // Bull fails a job whose worker died too often (stalled); the record must say so and free the slot.
      queue.on('failed', (job: Job<JobPayload>, error: Error) =>
        error instanceof HandedBack
          ? void this.requeue(job)
          : // a rejection here would end the process: Redis may be going away (the worker is stopping)
            void this.onGaveUp(handler, job, error).catch((failure: Error) =>
              this.logger.warn(`could not record that ${String(job.id)} failed: ${failure.message}`),
            ),
      );
    }
  }

  /**
   * On SIGTERM (before the queues close): takes no more jobs, has every running job stop at its next
   * checkpoint, and puts each back in its queue, where another worker takes it at once and resumes it from
   * its checkpoints, instead of after the lock time as for a killed worker.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.queues.map((queue) => queue.pause(true, true)));
    if (this.contexts.size > 0) this.logger.log(`handing back ${this.contexts.size} running job(s)`);
    for (const context of this.contexts) context.handBack();
    await Promise.allSettled([...this.runs]);
    const requeued = Promise.all([...this.requeues.values()].map(({ queued }) => queued));
    await Promise.race([requeued, new Promise((resolve) => setTimeout(resolve, REQUEUE_WAIT_MS).unref())]);
  }

  /** A run with its log lines carrying its request's id, known to the shutdown while it goes on. */
  private tracked(handler: JobHandler, job: Job<JobPayload>): Promise<void> {
    const bindings = { requestId: job.data.requestId, job: `${handler.kind} ${job.data.runId}` };
    const run = withLogContext(bindings, () => this.run(handler, job));
    this.runs.add(run);
    void run.catch(() => undefined).finally(() => this.runs.delete(run));
    return run;
  }

  /** Bull has failed a handed-back job (nothing else takes it from a stopping worker): it goes back to waiting. */
  private async requeue(job: Job<JobPayload>): Promise<void> {
    try {
      await job.retry();
      this.logger.log(`handed back ${String(job.id)}`);
    } catch (error) {
      this.logger.warn(`could not hand back ${String(job.id)}: ${(error as Error).message}`);
    } finally {
      this.requeues.get(String(job.id))?.done();
    }
  }

  private async run(handler: JobHandler, job: Job<JobPayload>): Promise<void> {
    const payload = job.data;
    const lease = { holder: randomUUID(), ttlMs: lockSettings(this.jobs.lockMs).lockDuration };
    const record = this.stopping ? null : await this.leaseRun(handler, payload, lease);
    let handedBack = this.stopping;
    if (record) {
      jobsRunning.inc({ kind: handler.kind });
      try {
        handedBack = await this.carryOut(handler, payload, record, lease);
      } finally {
        jobsRunning.dec({ kind: handler.kind });
        await this.store.releaseRun(record, lease.holder).catch(() => undefined);
      }
    }
    if (!handedBack) return;
    // the lease is free now; Bull fails the job on this error and the 'failed' listener queues it again
    let done = () => {};
    const queued = new Promise<void>((resolve) => (done = resolve));
    this.requeues.set(String(job.id), { queued, done });
    throw new HandedBack();
  }

  /**
   * The run to carry out, once this worker holds its lease; null when there is nothing to do. A run another
   * worker holds (Bull handed the job out twice, or its dead worker's lease has not lapsed yet) is waited for.
   * A run cancelled while no worker carried it out (queued, or its worker died) has what its runs wrote taken
   * back by the worker that holds the lease next, which then ends it: its own worker, if alive, took it back
   * already, and taking back twice is harmless.
   */
  private async leaseRun(
    handler: JobHandler,
    payload: JobPayload,
    lease: RunLease,
  ): Promise<JobRecord | null> {
    const run = { kind: handler.kind, ticket: payload.ticket, run_id: payload.runId };
    const ours = (record: JobRecord | null): record is JobRecord =>
      record?.run_id === payload.runId && ['in_progress', 'cancelled'].includes(record.status);
    while (!this.stopping) {
      if (await this.store.holdRun(run, lease.holder, lease.ttlMs)) {
        // read once held: a cancel that found the run held by no worker has ended it already
        const record = await this.store.get(handler.kind, payload.ticket);
        if (ours(record) && record.status === 'in_progress' && !record.cancelling) return record;
        if (ours(record)) await this.endCancelled(handler, payload, record);
        await this.store.releaseRun(run, lease.holder);
        return null;
      }
      // replaced by a newer run, or ended by its worker
      if (!ours(await this.store.get(handler.kind, payload.ticket))) return null;
      await new Promise((resolve) => setTimeout(resolve, lease.ttlMs / 10));
    }
    return null;
  }

  /** A run cancelled while no worker carried it out: what its runs wrote goes, then it reads as cancelled. */
  private async endCancelled(handler: JobHandler, payload: JobPayload, record: JobRecord): Promise<void> {
    await this.takeBack(handler, payload, record);
    if (record.status !== 'in_progress') return;
    if ((await this.store.end(record, cancelledEnd(handler.kind))) === 'ended')
      await this.notify(payload, record);
  }

  /** Runs the job and records its end; true when it was handed back instead (the worker is stopping). */
  private async carryOut(
    handler: JobHandler,
    payload: JobPayload,
    record: JobRecord,
    lease: RunLease,
  ): Promise<boolean> {
    this.logger.log(`running ${handler.kind} job ${record.run_id}`);
    const workDir = runDir(this.processSettings.dataDir, handler.kind, record.ticket, record.run_id);
    await mkdir(workDir, { recursive: true });
    // the user's earlier runs of this kind were replaced by this one: their files go now
    await removeOtherRuns(this.files, dirname(workDir), record, record.run_id);
    const context = new JobContext(this.store, record, lease);
    this.contexts.add(context);
    const startedAt = performance.now();
    let outcome: JobEnd | undefined;
    let done: JobOutcome | undefined;
    try {
      done = await handler.run(payload, context, workDir);
      await context.flush();
      outcome = { status: 'finished', message: done.message, result: done.result };
    } catch (error) {
      if (!context.signal.aborted) {
        outcome = { status: 'failed', ...failureOf(error) };
        const cause = error instanceof Error ? error.message : outcome.message;
        this.logger.warn(`${handler.kind} ${record.run_id} failed: ${cause}`);
      }
    } finally {
      this.contexts.delete(context);
      await context.close();
    }
    // Another worker carries the run on now: the run, its files and what it wrote are its. The lease is renewed
    // here rather than trusted from the last renewal: a worker cut off from Redis for longer than the lease (a
    // slow failover) finds on its return that another took the run over, and must not end it under that one.
    if (context.superseded || !(await this.store.holdRun(record, lease.holder, lease.ttlMs))) {
      this.logger.warn(`${handler.kind} ${record.run_id} lost its lease`);
      return false;
    }
    if (context.handedBack && outcome === undefined) return true;
    // stopped without an outcome: cancelled (or ended meanwhile by another process)
    const run = { kind: handler.kind, record, workDir, takeBack: done?.takeBack };
    const ended = await this.recordEnd(run, outcome ?? cancelledEnd(handler.kind));
    countEnd(handler.kind, payload, ended, (performance.now() - startedAt) / 1000);
    await this.notify(payload, record, done?.link);
    return false;
  }

  /**
   * Records how a run ended, once what it leaves is as the end says: a run that failed or was cancelled has
   * its files removed first (its handler took back its writes at the target as it stopped), and one that
   * finished as the user cancelled it has its writes taken back first too. Answers the end recorded;
   * undefined when the run had ended already (ended by another process).
   */
  private async recordEnd(run: EndingRun, outcome: JobEnd): Promise<JobEnd | undefined> {
    const { kind, record, workDir, takeBack } = run;
    if (outcome.status === 'finished') {
      const answer = await this.store.end(record, outcome);
      if (answer === 'ended') {
        // with an object store, what the run leaves is in the store: its directory here was scratch
        if (!this.files.inWorkDir) await rm(workDir, { recursive: true, force: true });
        return outcome;
      }
      // cancelled between the job's last look and its end: what it wrote goes, as for any cancelled job
      if (takeBack) await this.takingBack(kind, takeBack);
      outcome = cancelledEnd(kind);
    }
    await this.removeFiles(record, workDir);
    if (outcome.status === 'failed') return (await this.store.endFailed(record, outcome)) ?? undefined;
    return (await this.store.end(record, outcome)) === 'ended' ? outcome : undefined;
  }

  /** A run that ended while its worker was dead: what its runs wrote goes, and its files. */
  private async takeBack(handler: JobHandler, payload: JobPayload, record: JobRecord): Promise<void> {
    const workDir = runDir(this.processSettings.dataDir, handler.kind, record.ticket, record.run_id);
    await this.takingBack(handler.kind, async () => handler.takeBackEarlierRuns?.(payload, record, workDir));
    await this.removeFiles(record, workDir);
  }

  /** Removes a run's files: its directory on this host and what it kept in the job-file store. */
  private async removeFiles(record: JobRecord, workDir: string): Promise<void> {
    await rm(workDir, { recursive: true, force: true });
    await this.files.removeRun(record);
  }

  /** Takes back what a job wrote; a failure to do so is logged, the job's end stands. */
  private async takingBack(kind: string, takeBack: () => Promise<void>): Promise<void> {
    try {
      await takeBack();
    } catch (error) {
      this.logger.warn(
        `could not take back what a ${kind} wrote: ${error instanceof Error ? error.message : ''}`,
      );
    }
  }

  /**
   * Bull failed a job whose workers kept dying: what its runs wrote goes, then it reads as failed (or as
   * cancelled, when the user is cancelling it). A worker still carrying it out (only slow to renew its lock)
   * holds its lease, and ends it itself.
   */
  private async onGaveUp(handler: JobHandler, job: Job<JobPayload>, error: Error): Promise<void> {
    const record = await this.store.get(handler.kind, job.data.ticket);
    if (!record || record.run_id !== job.data.runId || !['in_progress', 'cancelled'].includes(record.status))
      return;
    const holder = randomUUID();
    const { lockDuration } = lockSettings(this.jobs.lockMs);
    if (!(await this.store.holdRun(record, holder, lockDuration))) return;
    try {
      await this.takeBack(handler, job.data, record);
      if (record.status !== 'in_progress') return;
      const failure = { statusCode: 500, message: gaveUpMessage(error.message) };
      if (await this.store.endFailed(record, failure)) await this.notify(job.data, record);
    } finally {
      await this.store.releaseRun(record, holder).catch(() => undefined);
    }
  }

  private async notify(payload: JobPayload, record: JobRecord, link?: string): Promise<void> {
    if (!payload.email) return;
    const final = await this.store.get(record.kind, record.ticket);
    if (!final || final.run_id !== record.run_id || final.status === 'in_progress') return;
    const failedFixity = final.result.failed_fixity ?? [];
    try {
      await this.mailer.send({
        to: payload.email,
        ...jobEndedMessage({
          kind: record.kind,
          status: final.status,
          message: final.message,
          failedFixity,
          link,
        }),
      });
    } catch (error) {
      this.logger.warn(`could not send the ${record.kind} email: ${(error as Error).message}`);
    }
  }
}

/** How long a stopping worker waits for its handed-back jobs to be queued again. */
const REQUEUE_WAIT_MS = 5000;

/** Why a run stopped without ending: its worker is stopping and hands the job back to the queue. */
class HandedBack extends Error {
  constructor() {
    super('handed back: its worker is stopping');
  }
}

/** Counts a run that ended: as its outcome, or as cancelled when none was recorded. */
function countEnd(kind: string, payload: JobPayload, outcome: JobEnd | undefined, seconds: number): void {
  const status = outcome?.status ?? 'cancelled';
  const target = jobTarget(payload);
  jobsEnded.inc({ kind, target, outcome: status });
  jobDuration.observe({ kind, outcome: status }, seconds);
  const failedFixity = outcome?.status === 'finished' ? (outcome.result?.failed_fixity ?? []) : [];
  if (failedFixity.length > 0) fixityFailures.inc({ kind, target }, failedFixity.length);
}

/** A run that stopped, as recordEnd needs it. */
interface EndingRun {
  kind: JobKind;
  record: JobRecord;
  workDir: string;
  /** takes back what the run wrote, when it finished as the user cancelled it */
  takeBack?: () => Promise<void>;
}

/** How a job that Bull gave up on (its workers kept dying) reads. */
export function gaveUpMessage(reason: string): string {
  return `The job was stopped after its worker went away repeatedly (${reason}).`;
}

/** The outbox used when no SMTP server is configured. */
export function outboxDir(settings: ProcessSettings): string {
  return join(settings.dataDir, 'outbox');
}
