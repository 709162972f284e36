import type { Store } from 'nestjs-pino/storage';
import type { Logger } from 'pino';

/**
 * A logging context (a request's, a job's) as nestjs-pino's storage holds it: every Nest logger writes through
 * its `logger`, a child of `root` carrying `bindings`, made when something first logs or asks for it. pino
 * makes a child by running its bindings through the token redaction, about 5 µs, and most requests log
 * nothing but their answer line, which is not written below level info.
 */
export class LogContext implements Store {
  private child?: Logger;

  constructor(
    private readonly root: Logger,
    readonly bindings: Readonly<Record<string, string | undefined>>,
  ) {}

  get logger(): Logger {
    return (this.child ??= this.root.child(this.bindings));
  }

  /** nestjs-pino's PinoLogger.assign replaces the logger with a child of it carrying more fields. */
  set logger(logger: Logger) {
    this.child = logger;
  }
}
