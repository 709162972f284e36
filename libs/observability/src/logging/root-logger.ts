import type { Logger } from 'pino';

let processLogger: Logger | undefined;

/** The process's pino logger, made once by LoggingModule.forRoot; request and job contexts are its children. */
export function rootLogger(): Logger {
  if (processLogger === undefined) throw new Error('LoggingModule.forRoot has not made the logger yet');
  return processLogger;
}

export function setRootLogger(logger: Logger): void {
  processLogger = logger;
}
