import { EXIT } from './errors';

/**
 * Ctrl-C aborts the returned signal: requests and waits stop, and a running job is cancelled at the service
 * before the program exits. A second Ctrl-C exits at once.
 */
export function abortOnInterrupt(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    controller.abort();
    process.once('SIGINT', () => process.exit(EXIT.interrupted));
  });
  return controller.signal;
}
