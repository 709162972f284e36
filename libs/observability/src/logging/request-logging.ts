import type { IncomingMessage, ServerResponse } from 'node:http';
import { storage } from 'nestjs-pino/storage';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { LogContext } from './log-context';
import { requestIdOf } from './request-id';
import { rootLogger } from './root-logger';

/** Requests whose answer is not logged: health checks and metrics scrapes. */
const UNLOGGED = /^\/(health|metrics)\b/;

/** A request's URL with the values of query parameters named like a token (`emulation_token`) removed. */
export function loggedUrl(url: string | undefined): string {
  return (url ?? '').replace(/([?&][^=&]*token[^=&]*=)[^&]*/gi, '$1[redacted]');
}

/**
 * The request logging of the process, as one Express middleware: the request's id (echoed in X-Request-Id),
 * every log line written while it is handled carrying it (a child of `root` in nestjs-pino's context, which
 * every Nest logger writes through, made when first used: LogContext), and one line when its answer has been
 * sent or given up, with its method, URL, status and time.
 *
 * pino-http did the same at 21-55 µs a request (the upper figure when the line is written): it makes a
 * second child logger per request bound to the whole request, which pino runs through the serializers and
 * the token redaction; one child for the id and one line at the end cost 3-14 µs (microbenchmark of both
 * on Node 20), and the listing bench's API used about 60 µs a request less CPU without pino-http.
 */
export function requestLogging(root: Logger) {
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const context = new LogContext(root, { requestId: requestIdOf(request, response) });
    // the level is set once at start (LOG_LEVEL): below info the answer line would never be written, and
    // watching for it costs three listeners and the URL's redaction a request
    if (root.isLevelEnabled('info') && !UNLOGGED.test(request.url ?? ''))
      logAnswer(context, request, response);
    storage.run(context, next);
  };
}

/** One line once the answer is sent ('finish'), failed ('error') or cut off by the client ('close'). */
function logAnswer(context: LogContext, request: IncomingMessage, response: ServerResponse): void {
  const started = Date.now();
  // the URL as received: routers rewrite request.url below their mounts
  const url = loggedUrl(request.url);
  const done = (error?: Error) => {
    response.off('finish', done);
    response.off('close', done);
    response.off('error', done);
    const line = {
      req: { method: request.method, url },
      res: { statusCode: response.statusCode },
      ...(error ? { err: error } : {}),
      responseTime: Date.now() - started,
    };
    context.logger.info(line, answerMessage(request, response, error));
  };
  response.on('finish', done);
  response.on('close', done);
  response.on('error', done);
}

function answerMessage(request: IncomingMessage, response: ServerResponse, error?: Error): string {
  if (error || response.statusCode >= 500) return 'request errored';
  return !request.readableAborted && response.writableEnded ? 'request completed' : 'request aborted';
}

/**
 * Mounts Express's body parsers and then requestLogging where Nest would mount them, after what the app has
 * mounted so far and before the routes (the app is made with `bodyParser: false`), so that requests meet them
 * in the same order as before: an answer of the parsers (a malformed JSON body) has no request id.
 * Mounted through Nest's MiddlewareConsumer, the logging ran inside Nest's middleware proxy, for each request
 * an async function, a route matching every path and a WeakSet entry.
 */
export function useRequestLogging(app: NestExpressApplication): void {
  // as Nest's own (NestApplication.registerParserMiddleware)
  app.useBodyParser('json');
  app.useBodyParser('urlencoded', { extended: true });
  app.use(requestLogging(rootLogger()));
}
