import type { ChildProcess } from 'node:child_process';

/**
 * Sends `signal` to `child` and resolves once it has exited (at once if it already has). A test that ends
 * before its child process does leaves the Jest worker holding the child's handle.
 */
export function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}
