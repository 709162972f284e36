import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';
import { waitForPort } from './redis-server';

export const ROOT = join(__dirname, '..', '..');
export const SHIPPED_TARGETS_FILE = join(ROOT, 'config', 'targets.json');

export interface RunningProcess {
  child: ChildProcess;
  /** everything the process printed so far */
  output(): string;
  /** resolves with the exit code (or signal) */
  exited: Promise<number | string>;
}

/** Starts one built app (`api` or `worker`) as a real process, as `npm run start:*` does. */
export function startApp(app: 'api' | 'worker', env: Record<string, string>): RunningProcess {
  // the script exec()s node, so the child's pid and signals are node's own
  const child = spawn('sh', [join(ROOT, 'scripts', 'start-app.sh'), app], {
    cwd: ROOT,
    // the run's temporary folder (test/support/global-setup.ts) holds the apps' temporary files too
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, output: () => output, exited };
}

export function waitForOutput(proc: RunningProcess, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(proc.output())) return resolve();
      if (proc.child.exitCode !== null || Date.now() > deadline) {
        return reject(new Error(`did not see ${pattern} in output:\n${proc.output()}`));
      }
      setTimeout(check, 50);
    };
    check();
  });
}

export interface Stack {
  baseUrl: string;
  dataDir: string;
  env: Record<string, string>;
  api: RunningProcess;
  worker?: RunningProcess;
  stop(): Promise<void>;
}

/**
 * A running API (and, unless `worker: false`, a worker) against the shared test Redis, with a fresh data
 * directory and a Redis key prefix of its own, so test files never see each other's state.
 */
export async function startStack(
  options: {
    env?: Record<string, string>;
    worker?: boolean;
    /** what the worker's environment has instead of `env` (a data directory of its own...) */
    workerEnv?: Record<string, string>;
    /** how long the processes may take to start */
    startTimeoutMs?: number;
  } = {},
): Promise<Stack> {
  const redisUrl = process.env.PRESQT_TEST_REDIS_URL;
  if (!redisUrl)
    throw new Error('PRESQT_TEST_REDIS_URL is not set: run the tests through jest (global setup)');
  const dataDir = mkdtempSync(join(tmpdir(), 'presqt-data-'));
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `t${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    DATA_DIR: dataDir,
    // several workers on one machine: each takes a free port for its health and metrics
    WORKER_HEALTH_PORT: '0',
    // many requests from one address and token by design; test/e2e/abuse-limits.spec.ts turns them on
    RATE_LIMITS: 'off',
    ...options.env,
  };
  const api = startApp('api', env);
  const worker = options.worker === false ? undefined : startApp('worker', { ...env, ...options.workerEnv });
  try {
    await Promise.race([
      // a start that timed out says what the API printed meanwhile
      waitForPort(port, options.startTimeoutMs ?? 20_000).catch((error: Error) => {
        throw new Error(`${error.message}; the API printed:\n${api.output()}`);
      }),
      api.exited.then((code) => {
        throw new Error(`API exited with ${code}:\n${api.output()}`);
      }),
    ]);
    if (worker) await waitForOutput(worker, /Worker ready/, options.startTimeoutMs);
  } catch (error) {
    api.child.kill('SIGKILL');
    worker?.child.kill('SIGKILL');
    throw error;
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    env,
    api,
    worker,
    async stop() {
      for (const proc of [api, worker]) proc?.child.kill('SIGTERM');
      await Promise.all([api.exited, worker?.exited]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The port the worker said it serves health and metrics on. */
export function workerHealthUrl(stack: Stack): string {
  const port = /Worker health and metrics on http:\/\/[^:]+:(\d+)/.exec(stack.worker!.output())?.[1];
  if (!port) throw new Error(`the worker did not say its health port:\n${stack.worker!.output()}`);
  return `http://127.0.0.1:${port}`;
}

/** Runs `work` while sampling the process's resident memory every 50 ms; the peak, in MiB. */
export async function peakRssDuring<T>(
  proc: RunningProcess,
  work: () => Promise<T>,
): Promise<{ result: T; peakMiB: number }> {
  let peakKiB = 0;
  const sample = () => {
    const status = readFileSync(`/proc/${proc.child.pid}/status`, 'utf8');
    peakKiB = Math.max(peakKiB, Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
  };
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    sample();
    return { result, peakMiB: Math.round(peakKiB / 1024) };
  } finally {
    clearInterval(timer);
  }
}
