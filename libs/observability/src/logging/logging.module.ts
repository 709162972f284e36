import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { LoadedSettings } from '@app/config';
import { LogSettings } from './log.settings';
import { requestIdOf } from './request-id';

/** Nest's level names as pino's. */
const PINO_LEVELS = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' } as const;

/**
 * Where a token can appear in a log line: the request headers that carry one, and any field of a logged
 * object named like one (queue payloads hold them encrypted, but never mind).
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["presqt-source-token"]',
  'req.headers["presqt-destination-token"]',
  'res.headers["set-cookie"]',
  '*.token',
  '*.sourceToken',
  '*.destinationToken',
  '*.password',
];

/** The options of the process's pino logger: JSON lines, levels by name, tokens redacted. */
export function pinoOptions(settings: LogSettings, processName: string): LoggerOptions {
  return {
    level: PINO_LEVELS[settings.level],
    base: { process: processName },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
}

/** A request's URL with the values of query parameters named like a token (`emulation_token`) removed. */
export function loggedUrl(url: string | undefined): string {
  return (url ?? '').replace(/([?&][^=&]*token[^=&]*=)[^&]*/gi, '$1[redacted]');
}

/**
 * Structured logs for the process (nestjs-pino over pino-http): one line per answered request with its id,
 * method, route, status and time; every other log line of the request carries its `requestId`. Health and
 * metrics scrapes are not logged. `LOG_FORMAT=pretty` prints for humans instead of JSON.
 */
@Module({})
export class LoggingModule {
  static forRoot(settings: LoadedSettings, processName: string): DynamicModule {
    const logs = settings.get(LogSettings);
    const options = {
      ...pinoOptions(logs, processName),
      genReqId: (request: IncomingMessage, response: ServerResponse) => requestIdOf(request, response),
      // the request's other log lines carry only its id
      customAttributeKeys: { reqId: 'requestId' },
      quietReqLogger: true,
      autoLogging: { ignore: (request: IncomingMessage) => /^\/(health|metrics)\b/.test(request.url ?? '') },
      serializers: {
        req: (request: { method: string; url: string }) => ({
          method: request.method,
          url: loggedUrl(request.url),
        }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
    };
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: logs.format === 'pretty' ? [options, pretty({ sync: true })] : options,
          forRoutes: [{ path: '*path', method: RequestMethod.ALL }],
        }),
      ],
    };
  }
}
