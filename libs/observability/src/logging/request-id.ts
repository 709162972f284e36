import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { storage } from 'nestjs-pino/storage';
import { LogContext } from './log-context';
import { rootLogger } from './root-logger';

export const REQUEST_ID_HEADER = 'x-request-id';
/** An incoming id is kept only when it is a short token: anything else could forge or flood log lines. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The request's id: the client's X-Request-Id when sane, else a new one; echoed in the answer. */
export function requestIdOf(request: IncomingMessage, response: ServerResponse): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const id = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** The id of the request being handled (from the logging context), for the jobs it starts. */
export function currentRequestId(): string | undefined {
  const context = storage.getStore();
  return context instanceof LogContext ? context.bindings.requestId : undefined;
}

/**
 * Runs `work` with every log line inside it (of any Nest logger) carrying `bindings`: a worker's job logs
 * with the id of the request that started it.
 */
export function withLogContext<T>(
  bindings: Record<string, string | undefined>,
  work: () => Promise<T>,
): Promise<T> {
  return storage.run(new LogContext(rootLogger(), bindings), work);
}
