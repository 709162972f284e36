import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitForPort } from '../../test/support/redis-server';
import { startApp, waitForOutput, type RunningProcess } from '../../test/support/stack';

/** A redis-server with an append-only file, so that a restart keeps the queues and job records. */
export class PersistentRedis {
  private process: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--appendonly',
        'yes',
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(this.port, 10_000);
  }

  /** Stops it as an operator's restart does (SIGTERM: the AOF is flushed) and starts it again. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const stopping = this.process;
    if (!stopping || stopping.exitCode !== null) return;
    const exited = new Promise((resolve) => stopping.once('exit', resolve));
    stopping.kill('SIGTERM');
    await exited;
  }
}

/** A worker process that can be killed (SIGKILL, as a crash) and started again. */
export class RestartableWorker {
  current: RunningProcess | null = null;
  readonly peaks: number[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    this.current = startApp('worker', this.env);
    await waitForOutput(this.current, /Worker ready/, 60_000);
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
