import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ServiceError } from '@app/common';
import { isRedisUnavailable } from '@app/jobs';
import { discardRestOfBody } from './http-edges';
import { RouteTable } from './route-table';

/** What a 503 for a Redis that does not answer asks clients to wait before they try again. */
const REDIS_RETRY_AFTER_SECONDS = 2;

/**
 * The one place that turns errors into `{"error": message}` (docs/behaviour.md#errors). Unknown routes answer 404 and
 * known routes asked with the wrong method 405; a Redis that does not answer gives 503 with Retry-After; anything unexpected
 * is logged and answers 500. The rest of a request body nothing read is discarded first, so that the answer
 * reaches a client still sending it.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiError');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const { status, message } = this.describe(exception, request, response);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    void discardRestOfBody(request, response).then(() => {
      if (!response.destroyed) response.status(status).json({ error: message });
    });
  }

  private describe(
    exception: unknown,
    request: Request,
    response: Response,
  ): { status: number; message: string } {
    if (exception instanceof ServiceError) return { status: exception.status, message: exception.message };
    if (isRedisUnavailable(exception)) {
      this.logger.warn(
        `${request.method} ${request.path}: Redis is not answering (${(exception as Error).message})`,
      );
      // a failover takes seconds: a client may try again soon
      response.setHeader('Retry-After', String(REDIS_RETRY_AFTER_SECONDS));
      return {
        status: 503,
        message: 'PresQT Error: the job store (Redis) does not answer at the moment; try again shortly.',
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404 && !this.routes.serves(request.method, request.path)) {
        const allowed = this.routes.methodsFor(request.path);
        if (allowed.length > 0) {
          response.setHeader('Allow', allowed.join(', '));
          return {
            status: 405,
            message: `PresQT Error: method ${request.method} is not allowed on ${request.path}; allowed: ${allowed.join(', ')}.`,
          };
        }
        return {
          status: 404,
          message: `PresQT Error: no endpoint at ${request.method} ${request.path}. The API is described at /api/docs.`,
        };
      }
      if (status === 400) {
        // Our code raises ServiceErrors; a bare 400 is the framework failing to read the request before any
        // of it ran: a JSON body that does not parse, or a path with a broken percent-encoding.
        return {
          status,
          message: `PresQT Error: the request could not be read: ${httpExceptionMessage(exception)}. Send a valid JSON body and a correctly percent-encoded path.`,
        };
      }
      return { status, message: httpExceptionMessage(exception) };
    }
    const bodyParserStatus = (exception as { status?: unknown; type?: unknown }).status;
    if (typeof bodyParserStatus === 'number' && bodyParserStatus >= 400 && bodyParserStatus < 500) {
      return { status: bodyParserStatus, message: `PresQT Error: ${(exception as Error).message}` };
    }
    this.logger.error(
      `${request.method} ${request.path} failed`,
      (exception as Error)?.stack ?? String(exception),
    );
    return { status: 500, message: 'PresQT Error: the server failed to handle the request.' };
  }
}

function httpExceptionMessage(exception: HttpException): string {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
