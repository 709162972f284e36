import { setTimeout as sleep } from 'node:timers/promises';
import {
  JOB_KIND_DESCRIPTIONS,
  jobStatusPath,
  jsonStatusPath,
  tokenHeaders,
  type FinishedJobStatus,
  type JobKind,
  type JobStatusBody,
} from '@app/job-kinds';
import type { ApiResponse } from './client';
import { CliError, EXIT, isAbort } from './errors';
import { humanBytes } from './output';
import type { ProgressView } from './progress';
import type { Session } from './session';

const POLL_MS = 400;

/**
 * Polls the user's job of `kind` (found by the token headers that started it) until it ends, showing its
 * progress. Ctrl-C cancels it at the service. Answers the finished status; a failed or cancelled job throws.
 */
export async function followJob<K extends JobKind>(
  session: Session,
  kind: K,
  headers: Record<string, string>,
): Promise<FinishedJobStatus<K>> {
  const bar = session.progress(JOB_KIND_DESCRIPTIONS[kind].title.padEnd(8));
  let ended: JobStatusBody;
  try {
    ended = await pollUntilEnded(session, kind, headers, bar);
  } finally {
    bar.stop();
  }
  if (ended.status !== 'finished') {
    const how = ended.status === 'cancelled' ? 'was cancelled' : ended.status;
    throw new CliError(`The ${kind} ${how}: ${ended.message}`, EXIT.jobFailed, { job: ended });
  }
  return ended as FinishedJobStatus<K>;
}

async function pollUntilEnded(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
  bar: ProgressView,
): Promise<JobStatusBody> {
  const { signal } = session;
  for (;;) {
    if (signal.aborted) {
      bar.stop();
      return cancelJob(session, kind, headers);
    }
    try {
      const body = await requestStatus(session, kind, headers);
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
async function cancelJob(session: Session, kind: JobKind, headers: Record<string, string>): Promise<never> {
  const { status, body } = await requestCancel(session, kind, headers);
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

/** The job's status: 202 in progress, 200 finished, 500 failed or cancelled. */
export async function requestStatus(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
): Promise<JobStatusBody> {
  const { body } = await session.client.json<JobStatusBody>(jsonStatusPath(kind), {
    headers,
    expect: [200, 202, 500],
    signal: session.signal,
  });
  return body;
}

/** The cancel itself: 200 with its message, or 406 with the status of a job that had already ended. */
export function requestCancel(
  session: Session,
  kind: JobKind,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<ApiResponse<JobStatusBody>> {
  return session.client.json<JobStatusBody>(jobStatusPath(kind), {
    method: 'PATCH',
    headers,
    expect: [200, 406],
    signal,
  });
}

/** A job's status in words: `Download: in progress, 40%`, then its progress. */
export function statusLines(kind: JobKind, status: JobStatusBody): string[] {
  const { title } = JOB_KIND_DESCRIPTIONS[kind];
  return [`${title}: ${status.status.replace('_', ' ')}, ${status.job_percentage}%`, progressDetail(status)];
}

function progressDetail(status: JobStatusBody): string {
  const parts: string[] = [];
  if (status.files_total) parts.push(`${status.files_finished ?? 0}/${status.files_total} files`);
  if (status.bytes_total)
    parts.push(`${humanBytes(status.bytes_finished ?? 0)}/${humanBytes(status.bytes_total)}`);
  return [...parts, status.message].join(' | ');
}

/**
 * The token headers that start and find the user's job of `kind`: a token for each target its description
 * names, in that order (a download's source, an upload's destination, a transfer's source then destination).
 */
export async function jobHeaders(
  session: Session,
  kind: JobKind,
  targets: string[],
): Promise<Record<string, string>> {
  const { tokens } = JOB_KIND_DESCRIPTIONS[kind];
  if (targets.length !== tokens.length) {
    const which = tokens.length === 1 ? 'one target' : `${tokens.join(' and ')} targets`;
    const article = /^[aeiou]/.test(kind) ? 'An' : 'A';
    throw new CliError(`${article} ${kind} is found by its ${which}.`, EXIT.usage);
  }
  const headers: Record<string, string> = {};
  // one after another: a missing token is reported for the first target that lacks one
  for (const [i, header] of tokenHeaders(kind).entries())
    headers[header] = await session.tokenFor(targets[i]);
  return headers;
}
