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
  inProgress,
  type EndAnswer,
  type JobEnd,
  type JobFailure,
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
import { RECORDED_ENDS, RunStateMachine, type RunState } from './run-state';

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
    for (const context of this.contexts) context.move('handBack');
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
    const taken = this.stopping ? null : await this.leaseRun(handler, payload, lease);
    let end: RunState | null = this.stopping ? 'handed-back' : null;
    if (taken) {
      const { record, state } = taken;
      try {
        end =
          state === 'running'
            ? await this.carryOut(handler, payload, record, lease)
            : await this.endUnheld(handler, payload, record, state);
      } finally {
        await this.store.releaseRun(record, lease.holder).catch(() => undefined);
      }
    }
    if (end !== 'handed-back') return;
    // the lease is free now; Bull fails the job on this error and the 'failed' listener queues it again
    let done = () => {};
    const queued = new Promise<void>((resolve) => (done = resolve));
    this.requeues.set(String(job.id), { queued, done });
    throw new HandedBack();
  }

  /**
   * The run to carry out once this worker holds its lease, and the state it starts in: `running`, or
   * `cancelling` for a run cancelled while no worker carried it out (queued, or its worker died), whose runs'
   * writes are taken back by the worker that holds its lease next (its own worker, if alive, took them back
   * already, and taking back twice is harmless). Null when there is nothing to do. A run another worker holds
   * (Bull handed the job out twice, or its dead worker's lease has not lapsed yet) is waited for.
   */
  private async leaseRun(
    handler: JobHandler,
    payload: JobPayload,
    lease: RunLease,
  ): Promise<{ record: JobRecord; state: 'running' | 'cancelling' } | null> {
    const run = { kind: handler.kind, ticket: payload.ticket, runId: payload.runId };
    const ours = (record: JobRecord | null): record is JobRecord => takenUp(record, payload.runId);
    while (!this.stopping) {
      if (await this.store.holdRun(run, lease.holder, lease.ttlMs)) {
        // read once held: a cancel that found the run held by no worker has ended it already
        const record = await this.store.get(handler.kind, payload.ticket);
        if (!ours(record)) {
          await this.store.releaseRun(run, lease.holder);
          return null;
        }
        const runsOn = record.state === 'running' || record.state === 'committing';
        return { record, state: runsOn ? 'running' : 'cancelling' };
      }
      // replaced by a newer run, or ended by its worker
      if (!ours(await this.store.get(handler.kind, payload.ticket))) return null;
      await new Promise((resolve) => setTimeout(resolve, lease.ttlMs / 10));
    }
    return null;
  }

  /** Runs the job and takes it to its end (see settle); answers the end. */
  private async carryOut(
    handler: JobHandler,
    payload: JobPayload,
    record: JobRecord,
    lease: RunLease,
  ): Promise<RunState> {
    this.logger.log(`running ${handler.kind} job ${record.runId}`);
    const workDir = runDir(this.processSettings.dataDir, handler.kind, record.ticket, record.runId);
    await mkdir(workDir, { recursive: true });
    // the user's earlier runs of this kind were replaced by this one: their files go now
    await removeOtherRuns(this.files, dirname(workDir), record, record.runId);
    const context = new JobContext(this.store, record, lease);
    this.contexts.add(context);
    jobsRunning.inc({ kind: handler.kind });
    const startedAt = performance.now();
    const run: EndingRun = { kind: handler.kind, record, workDir, machine: context };
    try {
      run.outcome = await handler.run(payload, context, workDir);
      await context.flush();
      // should the store refuse the end (the user cancelled the run just as it finished), this takes it back
      run.takeBack = run.outcome.takeBack;
      context.move('returned');
    } catch (error) {
      run.failure = failureOf(error);
      if (context.move('threw') === 'failing') {
        const cause = error instanceof Error ? error.message : run.failure.message;
        this.logger.warn(`${handler.kind} ${record.runId} failed: ${cause}`);
      }
    } finally {
      this.contexts.delete(context);
      jobsRunning.dec({ kind: handler.kind });
      await context.close();
    }
    // The lease is renewed here rather than trusted from the last renewal: a worker cut off from Redis for
    // longer than the lease (a slow failover) finds on its return that another took the run over, and must not
    // end it under that one.
    if (context.state !== 'superseded' && !(await this.store.holdRun(record, lease.holder, lease.ttlMs)))
      context.move('leaseLost');
    const end = await this.settle(run);
    if (end === 'superseded') this.logger.warn(`${handler.kind} ${record.runId} lost its lease`);
    if (RECORDED_ENDS.has(end)) {
      countEnd(handler.kind, payload, run.recorded!, (performance.now() - startedAt) / 1000);
      await this.notify(payload, run);
    }
    return end;
  }

  /**
   * Takes a run no worker carries out to its end, under its lease: one cancelled meanwhile (`cancelling`), or
   * one Bull gave up on (`failing`). What its runs wrote goes first, then its files.
   */
  private async endUnheld(
    handler: JobHandler,
    payload: JobPayload,
    record: JobRecord,
    state: 'cancelling' | 'failing',
    failure?: JobFailure,
  ): Promise<RunState> {
    const workDir = runDir(this.processSettings.dataDir, handler.kind, record.ticket, record.runId);
    const run: EndingRun = {
      kind: handler.kind,
      record,
      workDir,
      machine: new RunStateMachine(state),
      failure,
      takeBack: async () => handler.takeBackEarlierRuns?.(payload, record, workDir),
    };
    const end = await this.settle(run);
    if (RECORDED_ENDS.has(end)) await this.notify(payload, run);
    return end;
  }

  /**
   * The worker's steps from a stopped run to its end, one state at a time (run-state.ts): each step does its
   * state's work and moves the run on by the store's answer. A run that fails or is cancelled has what it
   * wrote taken back (unless its handler did as it stopped) and its files removed before its end is recorded,
   * so that it reads as ended only once what it leaves is as the end says.
   */
  private async settle(run: EndingRun): Promise<RunState> {
    for (;;) {
      switch (run.machine.state) {
        case 'finishing': {
          const { message, result } = run.outcome!;
          run.machine.move(await this.record(run, { state: 'finished', message, result }));
          break;
        }
        case 'failing':
          await this.clearAway(run);
          run.machine.move(await this.record(run, { state: 'failed', ...run.failure! }));
          break;
        case 'cancelling':
          await this.clearAway(run);
          run.machine.move(await this.record(run, cancelledEnd(run.kind)));
          break;
        case 'finished':
          // with an object store, what the run leaves is in the store: its directory here was scratch
          if (!this.files.inWorkDir) await rm(run.workDir, { recursive: true, force: true });
          return 'finished';
        default:
          return run.machine.state;
      }
    }
  }

  /** Records `end` in the store; the store's answer is the event that moves the run on. */
  private async record(run: EndingRun, end: JobEnd): Promise<EndAnswer> {
    const answer = await this.store.end(run.record, end);
    if (answer === 'ended') run.recorded = end;
    return answer;
  }

  /** What a run that does not finish leaves goes: what it wrote at the target (taken back once), its files. */
  private async clearAway(run: EndingRun): Promise<void> {
    const { takeBack } = run;
    run.takeBack = undefined;
    try {
      await takeBack?.();
    } catch (error) {
      // the run's end stands all the same
      this.logger.warn(`could not take back what a ${run.kind} wrote: ${(error as Error)?.message}`);
    }
    await rm(run.workDir, { recursive: true, force: true });
    await this.files.removeRun(run.record);
  }

  /**
   * Bull failed a job whose workers kept dying: what its runs wrote goes, then it reads as failed (or as
   * cancelled, when the user is cancelling it). A worker still carrying it out (only slow to renew its lock)
   * holds its lease, and ends it itself.
   */
  private async onGaveUp(handler: JobHandler, job: Job<JobPayload>, error: Error): Promise<void> {
    const record = await this.store.get(handler.kind, job.data.ticket);
    if (!takenUp(record, job.data.runId)) return;
    const holder = randomUUID();
    const { lockDuration } = lockSettings(this.jobs.lockMs);
    if (!(await this.store.holdRun(record, holder, lockDuration))) return;
    try {
      const failure = { failureCode: 500, message: gaveUpMessage(error.message) };
      await this.endUnheld(handler, job.data, record, 'failing', failure);
    } finally {
      await this.store.releaseRun(record, holder).catch(() => undefined);
    }
  }

  /** Emails the user the end this worker recorded, when they asked for it. */
  private async notify(payload: JobPayload, run: EndingRun): Promise<void> {
    const end = run.recorded;
    if (!payload.email || !end) return;
    try {
      await this.mailer.send({
        to: payload.email,
        ...jobEndedMessage({
          kind: run.kind,
          status: end.state,
          message: end.message,
          failedFixity: failedFixityOf(end),
          link: run.outcome?.link,
        }),
      });
    } catch (error) {
      this.logger.warn(`could not send the ${run.kind} email: ${(error as Error).message}`);
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

/** Counts a run this worker carried out and recorded the end of. */
function countEnd(kind: JobKind, payload: JobPayload, end: JobEnd, seconds: number): void {
  const target = jobTarget(payload);
  jobsEnded.inc({ kind, target, outcome: end.state });
  jobDuration.observe({ kind, outcome: end.state }, seconds);
  const failedFixity = failedFixityOf(end);
  if (failedFixity.length > 0) fixityFailures.inc({ kind, target }, failedFixity.length);
}

function failedFixityOf(end: JobEnd): string[] {
  return end.state === 'finished' ? (end.result.failed_fixity ?? []) : [];
}

/**
 * Whether a worker that holds the run's lease takes the run up: it is the job's current run, and in progress
 * or cancelled (what its runs wrote may still be to take back).
 */
function takenUp(record: JobRecord | null, runId: string): record is JobRecord {
  return record?.runId === runId && (inProgress(record.state) || record.state === 'cancelled');
}

/** A run on its way to its end (JobRunner.settle). */
interface EndingRun {
  kind: JobKind;
  record: JobRecord;
  workDir: string;
  /** the run's state: its context's, for a run carried out */
  machine: Pick<RunStateMachine, 'state' | 'move'>;
  /** what the handler returned, recorded once it has finished */
  outcome?: JobOutcome;
  /** why it failed */
  failure?: JobFailure;
  /** takes back what the run wrote, when it must and its handler did not */
  takeBack?: () => Promise<void>;
  /** the end this worker recorded */
  recorded?: JobEnd;
}

/** How a job that Bull gave up on (its workers kept dying) reads. */
export function gaveUpMessage(reason: string): string {
  return `The job was stopped after its worker went away repeatedly (${reason}).`;
}

/** The outbox used when no SMTP server is configured. */
export function outboxDir(settings: ProcessSettings): string {
  return join(settings.dataDir, 'outbox');
}
