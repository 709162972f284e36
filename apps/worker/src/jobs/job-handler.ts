import type { JobKind, JobRecord, PayloadOf, ResultOf } from '@app/jobs';
import type { JobContext } from './job-context';

export interface JobOutcome<K extends JobKind = JobKind> {
  message: string;
  /** the kind's result fields, shown by the job-status endpoint (docs/behaviour.md#job-status) */
  result: ResultOf<K>;
  /** where the user finds what the job made, for the email */
  link?: string;
  /** takes back what the job wrote, should it turn out to have been cancelled just as it finished */
  takeBack?: () => Promise<void>;
}

/** Carries out one kind of job in the worker. */
export interface JobHandler<K extends JobKind = JobKind> {
  readonly kind: K;
  /**
   * Does the work, reporting progress through `context` and stopping with JobCancelled when it is cancelled.
   * `workDir` belongs to this run; it survives a crash of the worker, so a resumed run may find files there.
   */
  run(payload: PayloadOf<K>, context: JobContext, workDir: string): Promise<JobOutcome<K>>;
  /**
   * For a job that writes to a target: takes back what its runs wrote, when it ended while no worker held it
   * (cancelled after its worker died, or failed for its workers dying again and again).
   */
  takeBackEarlierRuns?(payload: PayloadOf<K>, record: JobRecord<K>, workDir: string): Promise<void>;
}

export const JOB_HANDLERS = Symbol('job-handlers');
