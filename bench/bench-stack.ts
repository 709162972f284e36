/**
 * The real API and worker for a bench run, with a Redis of their own, and the jobs run against them: started,
 * polled to their end, timed, and the worker's memory sampled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { TARGET_ACTIONS } from '@app/targets/target-entry';
import { request, type Dispatcher } from 'undici';

const ROOT = join(__dirname, '..');

export interface BenchStack {
  /** the API's base URL */
  base: string;
  api: ChildProcess;
  /** the first worker */
  worker: ChildProcess;
  workers: ChildProcess[];
  redis: ChildProcess;
  redisUrl: string;
  stop(): void;
}

/** Starts Redis, the built API and `workers` workers with `targetsFile`, as `npm run start:*` runs them. */
export async function startBenchStack(work: string, targetsFile: string, workers = 1): Promise<BenchStack> {
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    DATA_DIR: join(work, 'data'),
    TARGETS_FILE: targetsFile,
    // several workers on one machine: each takes a free port for its health and metrics
    WORKER_HEALTH_PORT: '0',
    // many requests from one address and token by design; test/e2e/abuse-limits.spec.ts turns them on
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ...(process.env.HASH_THREADS ? { HASH_THREADS: process.env.HASH_THREADS } : {}),
    ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}),
    ...(process.env.FILE_TRANSFERS ? { FILE_TRANSFERS: process.env.FILE_TRANSFERS } : {}),
    // PRESQT_NO_JEMALLOC=1 measures with glibc's allocator (scripts/start-app.sh)
    ...(process.env.PRESQT_NO_JEMALLOC ? { PRESQT_NO_JEMALLOC: process.env.PRESQT_NO_JEMALLOC } : {}),
  };
  // as `npm run start:*` runs them (docs/memory.md); BENCH_NODE_ARGS adds node options, e.g.
  // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles both processes
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const start = (app: string) =>
    spawn('sh', [join(ROOT, 'scripts/start-app.sh'), app, ...nodeArgs], { env, stdio: 'ignore' });
  const api = start('api');
  const workerProcesses = Array.from({ length: workers }, () => start('worker'));
  const stop = () => [api, ...workerProcesses, redis].forEach((child) => child.kill('SIGTERM'));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${base}/api_v1/`).catch(() => null))?.ok === true);
  } catch (error) {
    stop();
    throw error;
  }
  // the worker connects to its queues a little after the API answers
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return {
    base,
    api,
    worker: workerProcesses[0],
    workers: workerProcesses,
    redis,
    redisUrl: env.REDIS_URL,
    stop,
  };
}

export interface JobRun {
  seconds: number;
  acceptMs: number;
  peakRssMiB: number;
  /** CPU seconds the worker process (all its threads) used from the start request to the end */
  workerCpuSeconds: number;
  /** of which its main thread's (JavaScript and the event loop; the rest is hashing, V8 and libuv threads) */
  workerMainCpuSeconds: number;
  /** the job's finished status body */
  result: Record<string, unknown>;
}

/** A job's start request: what is sent to get its 202. */
interface JobStart {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

/** Where a job's status is polled, with the headers that name it. */
interface JobStatus {
  path: string;
  headers: Record<string, string>;
}

/**
 * Starts a job, polls it every `pollMs` to its end, and times it, sampling the worker's memory. The web client
 * polls every 1,000 ms; a single job is polled more often so that its time is not rounded up by a second.
 */
export async function runJob(
  base: string,
  start: JobStart,
  status: JobStatus,
  worker: ChildProcess,
  pollMs = 50,
): Promise<JobRun> {
  return watchJob(base, status, worker, pollMs, () => startJob(base, start));
}

/** Sends a job's start request; throws unless the job was accepted with a 202. */
async function startJob(base: string, { path, method, headers, body }: JobStart): Promise<void> {
  const response = await fetch(`${base}${path}`, { method, headers, body });
  if (response.status !== 202)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
}

/** Runs `start` (which resolves once the job was accepted with a 202), then as runJob. */
export async function watchJob(
  base: string,
  status: JobStatus,
  worker: ChildProcess,
  pollMs: number,
  start: () => Promise<void>,
): Promise<JobRun> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(worker.pid!))), 50);
  const cpuBefore = cpuSeconds(worker.pid!);
  const mainCpuBefore = mainThreadCpuSeconds(worker.pid!);
  try {
    const started = performance.now();
    await start();
    const acceptMs = performance.now() - started;
    const result = await pollToEnd(base, status, pollMs);
    return {
      seconds: (performance.now() - started) / 1000,
      acceptMs: Math.round(acceptMs),
      peakRssMiB: Math.max(peak, rssMiB(worker.pid!)),
      workerCpuSeconds: cpuSeconds(worker.pid!) - cpuBefore,
      workerMainCpuSeconds: mainThreadCpuSeconds(worker.pid!) - mainCpuBefore,
      result,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** Polls a job every `pollMs` until it has ended; its finished status body. */
async function pollToEnd(base: string, status: JobStatus, pollMs: number): Promise<Record<string, unknown>> {
  for (;;) {
    const answer = await pollOnce(`${base}${status.path}`, status.headers);
    if (answer.statusCode === 200) return (await answer.body.json()) as Record<string, unknown>;
    const text = await answer.body.text();
    if (answer.statusCode !== 202) throw new Error(`${status.path}: ${answer.statusCode} ${text}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * One status poll, with undici's `request` (fetch costs this process, which also runs the fake upstreams,
 * several times as much CPU a poll). A poll may reuse a kept-alive connection at the moment the API closes it
 * as idle (its 5 s keep-alive): when this process's own fake upstream has blocked its event loop past the
 * client's margin, the reuse fails with "other side closed". Polling is idempotent, so such a poll is sent
 * again.
 */
async function pollOnce(url: string, headers: Record<string, string>): Promise<Dispatcher.ResponseData> {
  try {
    return await request(url, { headers });
  } catch (error) {
    if ((error as { code?: string }).code !== 'UND_ERR_SOCKET') throw error;
    return request(url, { headers });
  }
}

/** The requests of a transfer of `id` from one target to another as a new project. */
function transferJob(
  from: string,
  to: string,
  id: string,
  [sourceToken, destinationToken]: [string, string],
): { start: JobStart; status: JobStatus } {
  const tokens = { 'presqt-source-token': sourceToken, 'presqt-destination-token': destinationToken };
  return {
    start: {
      path: `/api_v1/targets/${to}/resources/`,
      method: 'POST',
      headers: {
        ...tokens,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ source_target_name: from, source_resource_id: id, keywords: [] }),
    },
    status: { path: '/api_v1/job_status/transfer/', headers: tokens },
  };
}

/** A transfer of `id` from one target to another as a new project; with the id of what it made. */
export async function runTransfer(
  base: string,
  worker: ChildProcess,
  from: string,
  to: string,
  id: string,
  tokens: [string, string],
  pollMs?: number,
): Promise<JobRun & { destinationId: string }> {
  const { start, status } = transferJob(from, to, id, tokens);
  const run = await runJob(base, start, status, worker, pollMs);
  return { ...run, destinationId: String(run.result.destination_resource_id) };
}

/**
 * A transfer as runTransfer, neither timed nor sampled: for a batch of jobs that several workers share, whose
 * own time and CPU are measured as a whole.
 */
export async function finishTransfer(
  base: string,
  from: string,
  to: string,
  id: string,
  tokens: [string, string],
  pollMs: number,
): Promise<void> {
  const { start, status } = transferJob(from, to, id, tokens);
  await startJob(base, start);
  await pollToEnd(base, status, pollMs);
}

/** The fields of /proc/<pid>/stat from the third on (the command name, field 2, may hold spaces). */
function statFields(pid: number | 'self' | `${number}/task/${number}`): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Linux counts CPU time in clock ticks of 1/100 s. */
const CLOCK_TICKS = 100;

/** CPU seconds (user and system, all its threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds a process's main thread (whose id is the process's) has used so far. */
export function mainThreadCpuSeconds(pid: number): number {
  const fields = statFields(`${pid}/task/${pid}`);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds this process's finished and waited-for children (cp, rclone) have used so far. */
export function childrenCpuSeconds(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : 0;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the API did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A targets-file entry of a bench target with every action; `fields` adds or replaces fields. */
export function benchTarget(
  name: string,
  connector: string,
  options: Record<string, unknown>,
  partners: { transfer_in: string[]; transfer_out: string[] },
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    readable_name: name,
    status_url: connector === 'filesystem' ? 'file:///' : 'http://127.0.0.1/',
    token_url: 'http://127.0.0.1/',
    supported_actions: Object.fromEntries(TARGET_ACTIONS.map((action) => [action, true])),
    supported_transfer_partners: partners,
    supported_hash_algorithms: connector === 'filesystem' ? ['md5', 'sha256'] : [],
    infinite_depth: true,
    search_parameters: connector === 'filesystem' ? ['title'] : [],
    connector,
    options,
    ...fields,
  };
}
