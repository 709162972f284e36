import type { NextFunction, Request, Response } from 'express';
import { httpRequestDuration, httpRequests } from './metric-definitions';

/**
 * Counts and times every answer by the route pattern Express matched (`/api_v1/targets/:target_name/...`),
 * never the raw path, which holds resource ids; a request no route matched counts as `unmatched`.
 */
export function httpMetrics(request: Request, response: Response, next: NextFunction): void {
  const stop = httpRequestDuration.startTimer();
  response.once('finish', () => {
    const pattern = (request.route as { path?: unknown } | undefined)?.path;
    const route = typeof pattern === 'string' ? `${request.baseUrl}${pattern}` : 'unmatched';
    const labels = { method: request.method, route, status: String(response.statusCode) };
    httpRequests.inc(labels);
    stop(labels);
  });
  next();
}
