import type { UpstreamSettings } from './upstream.settings';
import type { IncomingHttpHeaders } from 'node:http';

/** What went wrong with one attempt: an answer's status and headers, or a connection error's code. */
export interface AttemptFailure {
  status?: number;
  headers?: IncomingHttpHeaders;
  code?: string;
  /** the answer's message says it is a rate limit (GitHub's secondary limits: see RateLimitRules) */
  rateLimited?: boolean;
}

/** What is special about an upstream's rate limits, beyond the statuses and headers every upstream uses. */
export interface RateLimitRules {
  /** a 403 whose message matches is a rate limit, not a refusal (GitHub's secondary rate limits) */
  message?: RegExp;
  /**
   * The first wait after a rate limit whose answer names no wait of its own (no `Retry-After`, no spent
   * limit's reset); it doubles with each further attempt. Without it, such a limit is retried with the usual
   * backoff.
   */
  unadvisedWaitMs?: number;
}

/** Connection failures worth another attempt; timeouts included. */
const TRANSIENT_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** Failures that show the request was never carried out, so even a non-idempotent one may be sent again. */
const NOT_SENT_ERRORS = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

function header(headers: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A rate limit's own word on when to try again, in ms from now: `Retry-After` (seconds or an HTTP date),
 * else the reset time of a spent limit (`X-RateLimit-Reset` at GitHub, `RateLimit-Reset` at GitLab: Unix
 * seconds). Undefined when the answer says nothing.
 */
export function rateLimitWait(
  headers: IncomingHttpHeaders | undefined,
  now = Date.now(),
): number | undefined {
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const remaining = header(headers, 'x-ratelimit-remaining') ?? header(headers, 'ratelimit-remaining');
  const reset = header(headers, 'x-ratelimit-reset') ?? header(headers, 'ratelimit-reset');
  if (remaining === '0' && reset !== undefined && Number.isFinite(Number(reset))) {
    return Math.max(0, Number(reset) * 1000 - now);
  }
  return undefined;
}

/** A 429, or a 403 that a rate limit gave (GitHub answers a spent limit with 403 and a zero remaining). */
export function isRateLimited(failure: AttemptFailure): boolean {
  if (failure.status === 429 || failure.rateLimited === true) return true;
  return failure.status === 403 && rateLimitWait(failure.headers) !== undefined;
}

export type RetryDecision = { retry: true; waitMs: number } | { retry: false; rateLimitedForMs?: number };

export interface RetryOptions {
  /** may be sent again even after the upstream may have received it; by default, what its method says */
  idempotent?: boolean;
  rules?: RateLimitRules;
}

/**
 * Whether attempt number `attempt` (1 for the first) that failed this way is tried again, and after how
 * long: a rate limit's own wait (or the upstream's rules for one that names none), or an exponential backoff
 * with jitter. A request that is not idempotent is sent again only when the upstream cannot have carried it
 * out (a refused connection, a rate limit, 503).
 */
export function decideRetry(
  failure: AttemptFailure,
  attempt: number,
  method: string,
  settings: UpstreamSettings,
  { idempotent = IDEMPOTENT_METHODS.has(method), rules = {} }: RetryOptions = {},
): RetryDecision {
  const rateLimited = isRateLimited(failure);
  const retriable =
    failure.status !== undefined
      ? rateLimited || (RETRIED_STATUSES.has(failure.status) && (idempotent || failure.status === 503))
      : failure.code !== undefined &&
        TRANSIENT_ERRORS.has(failure.code) &&
        (idempotent || NOT_SENT_ERRORS.has(failure.code));
  if (!retriable || attempt > settings.retries) return { retry: false };
  const unadvised =
    rateLimited && rules.unadvisedWaitMs !== undefined
      ? rules.unadvisedWaitMs * 2 ** (attempt - 1)
      : undefined;
  const asked = rateLimitWait(failure.headers) ?? unadvised;
  if (asked !== undefined && asked > settings.maxWaitMs) return { retry: false, rateLimitedForMs: asked };
  const backoff = settings.retryBaseMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
  return { retry: true, waitMs: Math.min(asked ?? backoff, settings.maxWaitMs) };
}
