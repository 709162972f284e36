import type { NextFunction, Request, Response } from 'express';
import { httpRequestDuration, httpRequests } from './metric-definitions';

/** What a route below a mount that is not listed is counted under: still one series, whatever the spelling. */
const UNLISTED_MOUNT = '/<mount>';

/**
 * Counts and times every answer by the route pattern Express matched (`/api_v1/targets/:target_name/...`),
 * never the raw path, which holds resource ids; a request no route matched counts as `unmatched`. A route of
 * a router mounted below a path (the queue dashboard at `/admin/queues`) is counted under that mount as given
 * in `mounts`: Express matches a mount case-insensitively and reports it (`baseUrl`) as the request spelled
 * it, so copying it would let clients make as many series as they like.
 */
export function httpMetrics(mounts: readonly string[] = []) {
  const mountOf = new Map(mounts.map((mount) => [mount.toLowerCase(), mount]));
  const label = (request: Request): string => {
    const pattern = (request.route as { path?: unknown } | undefined)?.path;
    if (typeof pattern !== 'string') return 'unmatched';
    if (request.baseUrl === '') return pattern;
    return `${mountOf.get(request.baseUrl.toLowerCase()) ?? UNLISTED_MOUNT}${pattern}`;
  };
  return (request: Request, response: Response, next: NextFunction): void => {
    const stop = httpRequestDuration.startTimer();
    response.once('finish', () => {
      const labels = { method: request.method, route: label(request), status: String(response.statusCode) };
      httpRequests.inc(labels);
      stop(labels);
    });
    next();
  };
}
