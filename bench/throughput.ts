/**
 * Download and transfer throughput of the real API and worker, beside `cp -r` and `rclone copy` of the same
 * data on the same disk, in one run; with the worker's peak RSS and the time to the 202.
 *
 *   npm run bench            (needs a build, redis-server and rclone: apt-get install -y redis-server rclone)
 *   BENCH_MIB=256 npm run bench   (a smaller data set, for a quick look; HASH_THREADS and FILE_TRANSFERS
 *                                  pass through to the worker)
 *   BENCH_DATA=many npm run bench (only the many-files set, or `one`)
 *
 * Data: "many" = BENCH_MIB files of 1 MiB; "one" = one file of BENCH_MIB MiB; random bytes (incompressible).
 *
 * Remote targets (BENCH_REMOTE=0 leaves them out): the connectors against the test suite's fake upstreams on
 * this machine, each answering 20 ms late (BENCH_LATENCY_MS) as a repository on the internet would, with a
 * transfer from the filesystem into each and back of "thousand" = 1,000 files of 64 KiB in 10 folders, and for
 * Zenodo (which keeps such a tree as one zip) also of "one".
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TARGET_ACTIONS } from '@app/targets/target-entry';
import { startRemoteTargets } from './remote-targets';

const ROOT = join(__dirname, '..');
const MIB = 1 << 20;
const SIZE_MIB = Number(process.env.BENCH_MIB ?? 1024);
const TOKEN = 'bench-token';
/** BENCH_DATA=many (or one) runs only that data set */
const DATA_SETS = process.env.BENCH_DATA ? [process.env.BENCH_DATA] : ['many', 'one'];
const REMOTE = process.env.BENCH_REMOTE !== '0';
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
/** the remote data sets: "thousand" for every remote target, "one" too for Zenodo */
const REMOTE_DATA: Record<string, string[]> = {
  github: ['thousand'],
  gitlab: ['thousand'],
  osf: ['thousand'],
  zenodo: ['thousand', 'one'],
  figshare: ['thousand'],
};

interface Row {
  what: string;
  data: string;
  seconds: number;
  mbPerSecond: number;
  note: string;
}

/** Bytes of each data set. */
function bytesOf(data: string): number {
  return data === 'thousand' ? 1000 * 64 * 1024 : SIZE_MIB * MIB;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'presqt-bench-'));
  const processes: ChildProcess[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const sourceRoot = join(work, 'source');
    makeData(join(sourceRoot, 'bench'));
    const rows: Row[] = [];

    for (const data of REMOTE ? [...DATA_SETS, 'thousand'] : DATA_SETS) {
      const bytes = bytesOf(data);
      const from = join(sourceRoot, 'bench', data);
      rows.push(
        row(
          `cp -r`,
          data,
          bytes,
          timed(() => execFileSync('cp', ['-r', from, join(work, `cp-${data}`)])),
        ),
      );
      rows.push(
        row(
          `rclone copy (--transfers 4, checksums)`,
          data,
          bytes,
          timed(() =>
            execFileSync('rclone', [
              'copy',
              '--transfers',
              '4',
              '--checksum',
              from,
              join(work, `rclone-${data}`),
            ]),
          ),
        ),
      );
    }

    const redisPort = await freePort();
    processes.push(
      spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      }),
    );
    const port = await freePort();
    const targetsFile = join(work, 'targets.json');
    const remotes = REMOTE ? await startRemoteTargets(LATENCY_MS, ['bench_src', 'bench_dst']) : [];
    stops.push(...remotes.map((remote) => () => remote.stop()));
    writeFileSync(
      targetsFile,
      JSON.stringify([
        target('bench_src', sourceRoot, ['bench_dst', ...remotes.map((remote) => remote.name)]),
        target('bench_dst', join(work, 'destination'), [
          'bench_src',
          ...remotes.map((remote) => remote.name),
        ]),
        ...remotes.map((remote) => remote.entry),
      ]),
    );
    mkdirSync(join(work, 'destination'), { recursive: true });
    const env = {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DATA_DIR: join(work, 'data'),
      TARGETS_FILE: targetsFile,
      LOG_LEVEL: 'warn',
      ...(process.env.HASH_THREADS ? { HASH_THREADS: process.env.HASH_THREADS } : {}),
      ...(process.env.FILE_TRANSFERS ? { FILE_TRANSFERS: process.env.FILE_TRANSFERS } : {}),
      // as `npm run start:worker` runs it (README, Memory)
      MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
    };
    // as `npm run start:*` runs them (README, Memory); BENCH_NODE_ARGS adds more, e.g.
    // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles both processes
    const nodeArgs = [
      '--max-semi-space-size=2',
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ];
    const api = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist/apps/api/main.js')], {
      env,
      stdio: 'ignore',
    });
    const worker = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist/apps/worker/main.js')], {
      env,
      stdio: 'ignore',
    });
    processes.push(api, worker);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/api_v1/`).catch(() => null))?.ok === true);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const accepted: string[] = [];
    const job = (what: string, data: string, run: JobRun) => {
      rows.push(row(what, data, bytesOf(data), run.seconds, `worker peak RSS ${run.peakRssMiB} MiB`));
      accepted.push(`${what}, ${data}: ${run.acceptMs} ms`);
    };
    const transfer = (from: string, to: string, id: string, tokens: [string, string]) =>
      runTransfer(base, worker, from, to, id, tokens);
    for (const data of DATA_SETS) {
      const id = Buffer.from(data).toString('base64url');
      const source = { 'presqt-source-token': TOKEN };
      job(
        'PresQT download (zip)',
        data,
        await runJob(
          base,
          { path: `/api_v1/targets/bench_src/resources/${id}.zip/`, method: 'GET' },
          { ...source, 'presqt-email-opt-in': '' },
          { path: '/api_v1/job_status/download.json/', headers: source },
          worker,
        ),
      );
      job('PresQT transfer (fs to fs)', data, await transfer('bench_src', 'bench_dst', id, [TOKEN, TOKEN]));
    }
    for (const remote of remotes) {
      for (const data of REMOTE_DATA[remote.name]) {
        const id = Buffer.from(data).toString('base64url');
        const there = await transfer('bench_src', remote.name, id, [TOKEN, remote.token]);
        job(`PresQT transfer fs to ${remote.name} (fake, ${LATENCY_MS} ms)`, data, there);
        const back = await transfer(remote.name, 'bench_dst', there.destinationId, [remote.token, TOKEN]);
        job(`PresQT transfer ${remote.name} (fake, ${LATENCY_MS} ms) to fs`, data, back);
      }
    }

    console.log(
      `\nData: "many" = ${SIZE_MIB} files of 1 MiB, "one" = 1 file of ${SIZE_MIB} MiB, "thousand" = 1,000 files of 64 KiB; ${process.env.BENCH_DIR ?? tmpdir()} on this machine.\n`,
    );
    console.log('| what | data | seconds | MB/s | vs rclone | note |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) {
      const rclone = rows.find((other) => other.what.startsWith('rclone') && other.data === r.data)!;
      console.log(
        `| ${r.what} | ${r.data} | ${r.seconds.toFixed(2)} | ${r.mbPerSecond.toFixed(0)} | ${(r.mbPerSecond / rclone.mbPerSecond).toFixed(2)} | ${r.note} |`,
      );
    }
    console.log(`\nTime from the start request to the 202: ${accepted.join('; ')}`);
  } finally {
    for (const child of processes) child.kill('SIGTERM');
    await Promise.all(stops.map((stop) => stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

function target(name: string, root: string, partners: string[]) {
  return {
    name,
    readable_name: name,
    status_url: 'file:///',
    token_url: 'http://localhost/',
    supported_actions: Object.fromEntries(TARGET_ACTIONS.map((action) => [action, true])),
    supported_transfer_partners: { transfer_in: partners, transfer_out: partners },
    supported_hash_algorithms: ['md5', 'sha256'],
    infinite_depth: true,
    search_parameters: ['title'],
    connector: 'filesystem',
    options: { root, tokens: { [TOKEN]: 'bench' } },
  };
}

function makeData(userDir: string): void {
  const chunk = Buffer.alloc(MIB);
  mkdirSync(join(userDir, 'many'), { recursive: true });
  for (let i = 0; i < SIZE_MIB; i++)
    writeFileSync(join(userDir, 'many', `file-${i}.bin`), randomFillSync(chunk));
  mkdirSync(join(userDir, 'one'), { recursive: true });
  const fd = openSync(join(userDir, 'one', 'one.bin'), 'w');
  for (let i = 0; i < SIZE_MIB; i++) writeSync(fd, randomFillSync(chunk));
  closeSync(fd);
  for (let i = 0; i < 1000; i++) {
    const folder = join(userDir, 'thousand', `folder-${i % 10}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file-${i}.bin`), randomFillSync(chunk.subarray(0, 64 * 1024)));
  }
  execFileSync('sync');
}

interface JobRun {
  seconds: number;
  acceptMs: number;
  peakRssMiB: number;
  /** the job's finished status body */
  result: Record<string, unknown>;
}

/** Starts a job, polls it to its end, and times it, sampling the worker's memory. */
async function runJob(
  base: string,
  start: { path: string; method: string; body?: string },
  headers: Record<string, string>,
  status: { path: string; headers: Record<string, string> },
  worker: ChildProcess,
): Promise<JobRun> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(worker.pid!))), 50);
  try {
    const started = performance.now();
    const response = await fetch(`${base}${start.path}`, { method: start.method, headers, body: start.body });
    const acceptMs = performance.now() - started;
    if (response.status !== 202)
      throw new Error(`${start.method} ${start.path}: ${response.status} ${await response.text()}`);
    for (;;) {
      const answer = await fetch(`${base}${status.path}`, { headers: status.headers });
      if (answer.status === 200) {
        const result = (await answer.json()) as Record<string, unknown>;
        const seconds = (performance.now() - started) / 1000;
        return {
          seconds,
          acceptMs: Math.round(acceptMs),
          peakRssMiB: Math.max(peak, rssMiB(worker.pid!)),
          result,
        };
      }
      if (answer.status !== 202) throw new Error(`${status.path}: ${answer.status} ${await answer.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    clearInterval(sampler);
  }
}

/** A transfer of `id` from one target to another as a new project; with the id of what it made. */
async function runTransfer(
  base: string,
  worker: ChildProcess,
  from: string,
  to: string,
  id: string,
  [sourceToken, destinationToken]: [string, string],
): Promise<JobRun & { destinationId: string }> {
  const tokens = { 'presqt-source-token': sourceToken, 'presqt-destination-token': destinationToken };
  const run = await runJob(
    base,
    {
      path: `/api_v1/targets/${to}/resources/`,
      method: 'POST',
      body: JSON.stringify({ source_target_name: from, source_resource_id: id, keywords: [] }),
    },
    {
      ...tokens,
      'presqt-file-duplicate-action': 'ignore',
      'presqt-keyword-action': 'none',
      'presqt-email-opt-in': '',
      'content-type': 'application/json',
    },
    { path: '/api_v1/job_status/transfer/', headers: tokens },
    worker,
  );
  return { ...run, destinationId: String(run.result.destination_resource_id) };
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : 0;
}

function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

function row(what: string, data: string, bytes: number, seconds: number, note = ''): Row {
  return { what, data, seconds, mbPerSecond: bytes / 1e6 / seconds, note };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the API did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

void main();
