import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { LoadedSettings } from '@app/config';
import { LogSettings } from './log.settings';
import { setRootLogger } from './root-logger';

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

/**
 * Structured logs for the process (pino, under Nest's loggers through nestjs-pino). The lines of requests
 * (one per answered request, and every other line of a request carrying its `requestId`) come from
 * requestLogging, which the app mounts (useRequestLogging). `LOG_FORMAT=pretty` prints for humans instead of
 * JSON.
 */
@Module({})
export class LoggingModule {
  static forRoot(settings: LoadedSettings, processName: string): DynamicModule {
    const logs = settings.get(LogSettings);
    const options = pinoOptions(logs, processName);
    const root = logs.format === 'pretty' ? pino(options, pretty({ sync: true })) : pino(options);
    setRootLogger(root);
    return {
      module: LoggingModule,
      imports: [
        // nestjs-pino's own middleware (pino-http) is mounted on no route: requestLogging does its work
        LoggerModule.forRoot({ pinoHttp: { logger: root }, useExisting: true, forRoutes: [] }),
      ],
    };
  }
}
