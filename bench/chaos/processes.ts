import { readFileSync } from 'node:fs';
import { startApp, waitForOutput, type RunningProcess } from '../../test/support/stack';

/** A worker process that can be killed (SIGKILL, as a crash) and started again. */
export class RestartableWorker {
  current: RunningProcess | null = null;
  /** every process started, for their logs */
  readonly started: RunningProcess[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    this.current = startApp('worker', this.env);
    this.started.push(this.current);
    await waitForOutput(this.current, /Worker ready/, 60_000);
  }

  /** processes that exited without being told to (a crash of our own): none may */
  get unexpectedExits(): number {
    return this.started.filter((run) => run.child.exitCode !== null && !run.child.killed).length;
  }

  async crash(): Promise<void> {
    this.current?.child.kill('SIGKILL');
    await this.current?.exited;
    await this.start();
  }

  async stop(): Promise<void> {
    this.current?.child.kill('SIGTERM');
    await this.current?.exited;
  }
}

/** The resident memory of a process in MiB, from /proc; 0 once it is gone. */
export function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}
