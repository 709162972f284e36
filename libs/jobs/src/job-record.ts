import type { JobKind, ResultOf } from '@app/job-kinds';

/**
 * Where a job stands (docs/jobs.md#the-job-record). A run is `running` until it ends; `committing` once past
 * its point of no return, where a cancel comes too late; `cancelling` once the user has cancelled it, until
 * what it wrote is taken back and it ends `cancelled`.
 */
export type JobState = 'running' | 'committing' | 'cancelling' | 'finished' | 'failed' | 'cancelled';

/** The states a job may move to from each; JobStore's scripts refuse every other move. */
export const JOB_STATE_MOVES: { readonly [S in JobState]: readonly JobState[] } = {
  // a run no worker holds and none has checkpointed (still queued) is cancelled at once
  running: ['committing', 'cancelling', 'cancelled', 'finished', 'failed'],
  committing: ['finished', 'failed'],
  cancelling: ['cancelled'],
  finished: [],
  failed: [],
  cancelled: [],
};

/** A job that has not ended yet: one of the states it may still move on from. */
export function inProgress(state: JobState): boolean {
  return JOB_STATE_MOVES[state].length > 0;
}

/** How far a run has got. */
export interface JobProgress {
  filesTotal: number;
  filesDone: number;
  bytesTotal: number;
  bytesDone: number;
  /** 0 to 99 while the run goes on (percentageOf), 100 once it has finished */
  percent: number;
}

/** One job as the store keeps it: what the job is, whatever the API makes of it for its clients. */
export interface JobRecord<K extends JobKind = JobKind> extends JobProgress {
  kind: K;
  ticket: string;
  /** a new id for every start, so a late worker of an earlier run can never touch a newer one */
  runId: string;
  state: JobState;
  message: string;
  /** a failed job's status code: the target's own for its errors, else 500; null in any other state */
  failureCode: number | null;
  /** a finished job's result fields; null in any other state */
  result: ResultOf<K> | null;
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601; null until the job has ended */
  endedAt: string | null;
}

/** Percentage of the work done: by bytes when sizes are known, else by files; 100 only once finished. */
export function percentageOf(progress: Omit<JobProgress, 'percent'>): number {
  const ratio =
    progress.bytesTotal > 0
      ? progress.bytesDone / progress.bytesTotal
      : progress.filesTotal > 0
        ? progress.filesDone / progress.filesTotal
        : 0;
  return Math.min(99, Math.floor(ratio * 100));
}
