import { JOB_KIND_DESCRIPTIONS, type JobKind, type ResultOf } from './job-kinds';

export type JobStatus = 'in_progress' | 'finished' | 'failed' | 'cancelled';

/**
 * A job's status as the job-status endpoints answer it (docs/behaviour.md#job-status). Progress counts are
 * shown while in progress and once finished; a finished job adds its kind's result fields (FinishedJobStatus).
 */
export type JobStatusBody = {
  status: JobStatus;
  /** null while in progress; "200" finished; "499" cancelled; the upstream code (a number) on failure */
  status_code: string | number | null;
  message: string;
  job_percentage: number;
  files_total?: number;
  files_finished?: number;
  bytes_total?: number;
  bytes_finished?: number;
};

/**
 * A finished job's status: its kind's result fields, and what the API adds to them (a download's ticket, which
 * the emulation service is given; an upload's or transfer's resource, as its Detail link).
 */
export type FinishedJobStatus<K extends JobKind> = JobStatusBody &
  ResultOf<K> & { ticket_number?: string; link_to_resource?: string };

/** Where the job-status endpoints are: `<kind>` (or `<kind>.<format>`) follows as the last segment. */
export const JOB_STATUS_ROUTE = 'api_v1/job_status';

/** The path of a job's status: in `format` (`download.zip/`), else `<kind>/`, where a cancel goes too. */
export function jobStatusPath(kind: JobKind, format?: string): string {
  return `/${JOB_STATUS_ROUTE}/${format === undefined ? kind : `${kind}.${format}`}/`;
}

/** The path whose answer is a job's status as JSON: `download.json/` for a kind with formats (api.md), else `<kind>/`. */
export function jsonStatusPath(kind: JobKind): string {
  return jobStatusPath(kind, JOB_KIND_DESCRIPTIONS[kind].formats.includes('json') ? 'json' : undefined);
}
