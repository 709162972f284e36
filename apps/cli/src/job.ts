import { setTimeout as sleep } from 'node:timers/promises';
import type { JobKind } from '@app/job-kinds';
import { CliError, EXIT, isAbort } from './errors';
import { humanBytes } from './output';
import type { ProgressView } from './progress';
import type { Session } from './session';

/** A job's status body (api.md, "Job status object"); a finished one adds its kind's result fields. */
export interface JobStatus {
  status: 'in_progress' | 'finished' | 'failed' | 'cancelled';
  status_code: string | number | null;
  message: string;
  job_percentage: number;
  files_total?: number;
  files_finished?: number;
  bytes_total?: number;
  bytes_finished?: number;
}

const POLL_MS = 400;

export const JOB_TITLES: Record<JobKind, string> = {
  download: 'Download',
  upload: 'Upload',
  transfer: 'Transfer',
};

export function statusPath(kind: JobKind): string {
  return kind === 'download' ? '/api_v1/job_status/download.json/' : `/api_v1/job_status/${kind}/`;
}

/**
 * Polls the user's job of `kind` (found by the token headers that started it) until it ends, showing its
 * progress. Ctrl-C cancels it at the service. Answers the finished status; a failed or cancelled job throws.
 */
export async function followJob<Result>(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
): Promise<JobStatus & Result> {
  const bar = session.progress(JOB_TITLES[kind].padEnd(8));
  let ended: JobStatus;
  try {
    ended = await pollUntilEnded(session, kind, headers, bar);
  } finally {
    bar.stop();
  }
  if (ended.status !== 'finished') {
    const how = ended.status === 'cancelled' ? 'was cancelled' : ended.status;
    throw new CliError(`The ${kind} ${how}: ${ended.message}`, EXIT.jobFailed, { job: ended });
  }
  return ended as JobStatus & Result;
}

async function pollUntilEnded(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
  bar: ProgressView,
): Promise<JobStatus> {
  const { client, signal } = session;
  for (;;) {
    if (signal.aborted) {
      bar.stop();
      return cancelJob(session, kind, headers);
    }
    try {
      const { body } = await client.json<JobStatus>(statusPath(kind), {
        headers,
        expect: [200, 202, 500],
        signal,
      });
      if (body.status === 'finished') bar.update(100, 100, progressDetail(body));
      if (body.status !== 'in_progress') return body;
      bar.update(body.job_percentage, 100, progressDetail(body));
      await sleep(POLL_MS, undefined, { signal });
    } catch (error) {
      // the loop's next turn cancels
      if (!isAbort(error)) throw error;
    }
  }
}

/** PATCH: the job ends cancelled (exit 130); one that ended first is reported as it ended. */
export async function cancelJob(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
): Promise<never> {
  const { status, body } = await session.client.json<JobStatus>(`/api_v1/job_status/${kind}/`, {
    method: 'PATCH',
    headers,
    expect: [200, 406],
  });
  if (status === 200)
    throw new CliError(`Interrupted: ${body.message}`, EXIT.interrupted, {
      job: { ...body, status: 'cancelled' },
    });
  throw new CliError(
    `Interrupted, but the ${kind} had already ended (${body.status}): ${body.message}`,
    EXIT.interrupted,
    {
      job: body,
    },
  );
}

export function progressDetail(status: JobStatus): string {
  const parts: string[] = [];
  if (status.files_total) parts.push(`${status.files_finished ?? 0}/${status.files_total} files`);
  if (status.bytes_total)
    parts.push(`${humanBytes(status.bytes_finished ?? 0)}/${humanBytes(status.bytes_total)}`);
  return [...parts, status.message].join(' | ');
}

/**
 * The token headers that start and find the user's job of `kind`: a download's source token, an upload's
 * destination token, a transfer's pair (targets: source, then destination).
 */
export async function jobHeaders(
  session: Session,
  kind: JobKind,
  targets: string[],
): Promise<Record<string, string>> {
  const [first = '', second = ''] = targets;
  if (kind === 'download') return { 'presqt-source-token': await session.tokenFor(first) };
  if (kind === 'upload') return { 'presqt-destination-token': await session.tokenFor(first) };
  return {
    'presqt-source-token': await session.tokenFor(first),
    'presqt-destination-token': await session.tokenFor(second),
  };
}
