import type { JobKind, JobStatus, JobStatusBody, ResultOf } from '@app/job-kinds';

export interface JobProgress {
  files_total: number;
  files_finished: number;
  bytes_total: number;
  bytes_finished: number;
}

/** One job as the store keeps it; `result` holds the kind's result fields, all of them once finished. */
export interface JobRecord<K extends JobKind = JobKind> extends JobProgress {
  kind: K;
  ticket: string;
  /** a new id for every start, so a late worker of an earlier run can never touch a newer one */
  run_id: string;
  status: JobStatus;
  /** null while in progress; "200" finished; "499" cancelled; the upstream code (a number) on failure */
  status_code: string | number | null;
  message: string;
  job_percentage: number;
  result: Partial<ResultOf<K>>;
  created_at: string;
  ended_at: string | null;
  /**
   * The user cancelled the run while in progress: it stops, what it wrote is taken back, and only then does it
   * end as cancelled (it shows as in progress meanwhile). Absent otherwise.
   */
  cancelling?: true;
}

/** What the job-status endpoints answer for a record (docs/behaviour.md#job-status): the HTTP status and the body. */
export function jobStatusResponse(record: JobRecord): { httpStatus: number; body: JobStatusBody } {
  const progress = {
    files_total: record.files_total,
    files_finished: record.files_finished,
    bytes_total: record.bytes_total,
    bytes_finished: record.bytes_finished,
  };
  const base = { status: record.status, status_code: record.status_code, message: record.message };
  switch (record.status) {
    case 'in_progress':
      return { httpStatus: 202, body: { ...base, job_percentage: record.job_percentage, ...progress } };
    case 'finished':
      return { httpStatus: 200, body: { ...base, job_percentage: 100, ...progress, ...record.result } };
    default:
      return { httpStatus: 500, body: { ...base, job_percentage: record.job_percentage } };
  }
}

/** Percentage of the work done: by bytes when sizes are known, else by files; 100 only once finished. */
export function percentageOf(progress: JobProgress): number {
  const ratio =
    progress.bytes_total > 0
      ? progress.bytes_finished / progress.bytes_total
      : progress.files_total > 0
        ? progress.files_finished / progress.files_total
        : 0;
  return Math.min(99, Math.floor(ratio * 100));
}
