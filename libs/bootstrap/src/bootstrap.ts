import type { INestApplication, INestApplicationContext, LoggerService } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { HashingSettings, setHashThreads } from '@app/fixity';
import { TargetsRegistry } from '@app/targets';
import { type AnySettingsClass, type LoadedSettings, loadSettings } from '@app/config';

/**
 * Loads the settings a process reads (`types`, each lib's own) and the targets file, or prints what is wrong
 * and exits, so that a misconfigured API or worker never starts half-working.
 */
export function loadSettingsOrExit(
  processName: string,
  types: readonly AnySettingsClass[],
): { settings: LoadedSettings; targets: TargetsRegistry } {
  try {
    const settings = loadSettings(types);
    setHashThreads(settings.get(HashingSettings).threads);
    return { settings, targets: TargetsRegistry.load(settings) };
  } catch (error) {
    process.stderr.write(`${processName}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

/**
 * Makes the application's pino logger (its LoggingModule) the one every Nest logger writes through, including
 * the lines Nest buffered while the application was being created (`bufferLogs`).
 */
export function useStructuredLogs(app: INestApplication): LoggerService {
  const logger = app.get(Logger);
  app.useLogger(logger);
  app.flushLogs();
  return logger;
}

/** how long a stop may take before the process exits regardless */
const SHUTDOWN_LIMIT_MS = 25_000;

/**
 * Closes the application on SIGTERM or SIGINT (running Nest's shutdown hooks, which close queues and the HTTP
 * server after in-flight work) and then exits with 0, so that supervisors see a clean stop; with 1 when the
 * stop has not finished within SHUTDOWN_LIMIT_MS.
 */
export function closeOnSignals(
  app: INestApplicationContext,
  logger: LoggerService,
  processName: string,
): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${processName} received ${signal}; shutting down`);
      // A library may reject on a connection closed under it while stopping (Bull does when a worker stops
      // before its queues' blocking connections are up): part of the stop, not a failure of it.
      process.on('unhandledRejection', (reason: unknown) => {
        logger.warn(`${processName} ignored while shutting down: ${describe(reason)}`);
      });
      // a stop that hangs (a job run that never reaches its next checkpoint) must not keep the process: its
      // jobs are taken over after their lock, as a killed worker's are; within Docker's 30 s stop grace
      setTimeout(() => {
        logger.error(`${processName} did not stop within ${SHUTDOWN_LIMIT_MS / 1000} s; exiting anyway`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
      app.close().then(
        () => {
          logger.log(`${processName} stopped`);
          process.exit(0);
        },
        (error: Error) => {
          logger.error(`${processName} failed to shut down cleanly: ${error.message}`);
          process.exit(1);
        },
      );
    });
  }
}

/** What a thrown value says, for a log line. */
function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : (JSON.stringify(reason) ?? 'nothing');
}
