import { setting, Settings } from '@app/config';

/** Timeouts and retries of requests to remote repositories (the connectors' shared HTTP client). */
export class UpstreamSettings extends Settings('Remote repositories', {
  timeoutMs: setting.int('UPSTREAM_TIMEOUT_MS', {
    min: 100,
    max: 600_000,
    default: 60_000,
    doc: 'how long a request to a remote repository may wait for an answer, or between two chunks of a body',
  }),
  deadlineMs: setting.int('UPSTREAM_DEADLINE_MS', {
    min: 100,
    max: 3_600_000,
    default: 30_000,
    doc: 'the longest one call to a remote repository may take to the last byte of its answer (a file: to its headers), retry waits left out; past it, 504',
  }),
  minBytesPerSecond: setting.int('UPSTREAM_MIN_RATE', {
    min: 1,
    unit: 'bytes a second',
    default: 8192,
    doc: "the slowest a file's body may come from a remote repository, in bytes a second over each 10 s we wait on it; slower, 504",
  }),
  retries: setting.int('UPSTREAM_RETRIES', {
    min: 0,
    max: 20,
    default: 5,
    doc: 'retries of a request to a remote repository that failed with 429, 5xx or a dropped connection',
  }),
  retryBaseMs: setting.int('UPSTREAM_RETRY_BASE_MS', {
    min: 1,
    max: 60_000,
    default: 500,
    doc: 'the first wait between attempts; it doubles with each, with jitter, unless the upstream says how long (`Retry-After`, rate-limit reset)',
  }),
  maxWaitMs: setting.int('UPSTREAM_MAX_WAIT_MS', {
    min: 1,
    max: 3_600_000,
    default: 60_000,
    doc: 'the longest wait for a rate limit; a longer one answers 503 rather than hold the job',
  }),
}) {}
