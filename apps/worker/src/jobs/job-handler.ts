import type { JobKind, JobPayload } from '@app/jobs';
import type { JobContext } from './job-context';

export interface JobOutcome {
  message: string;
  /** the kind's result fields (decision 11), shown by the job-status endpoint */
  result: Record<string, unknown>;
  /** where the user finds what the job made, for the email */
  link?: string;
}

/** Carries out one kind of job in the worker. */
export interface JobHandler<P extends JobPayload = JobPayload> {
  readonly kind: JobKind;
  /**
   * Does the work, reporting progress through `context` and stopping with JobCancelled when it is cancelled.
   * `workDir` belongs to this run; it survives a crash of the worker, so a resumed run may find files there.
   */
  run(payload: P, context: JobContext, workDir: string): Promise<JobOutcome>;
}

export const JOB_HANDLERS = Symbol('job-handlers');
