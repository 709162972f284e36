/**
 * Scale-out: the same batch of independent transfers, one per user, into a fake OSF that answers every
 * request 20 ms late (as a repository on the internet would), run by one worker and then by two, each time
 * by workers just started and then again by the same workers.
 *
 *   npm run build && npm run bench:scale-out
 *   SCALE_USERS=16 SCALE_FILES=60 SCALE_LATENCY_MS=20 SCALE_WORKERS=1,2 SCALE_POLL_MS=250 (the defaults)
 */
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { OsfFake } from '../test/fakes/osf/osf-fake';
import {
  benchTarget,
  cpuSeconds,
  finishTransfer,
  mainThreadCpuSeconds,
  startBenchStack,
  type BenchStack,
} from './bench-stack';

const USERS = Number(process.env.SCALE_USERS ?? 16);
const FILES = Number(process.env.SCALE_FILES ?? 60);
const LATENCY_MS = Number(process.env.SCALE_LATENCY_MS ?? 20);
const WORKER_COUNTS = (process.env.SCALE_WORKERS ?? '1,2').split(',').map(Number);
/** each user's job is polled this often: 16 users at the benches' usual 50 ms would load the API more than
 * the workers; the web client polls every 1,000 ms */
const POLL_MS = Number(process.env.SCALE_POLL_MS ?? 250);
const PROJECT_ID = Buffer.from('project').toString('base64url');

const userToken = (user: number) => `scale-token-${user}`;

async function main(): Promise<void> {
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'presqt-scale-'));
  const osf = await new OsfFake().start();
  try {
    for (const server of osf.servers) server.latencyMs = LATENCY_MS;
    for (let user = 0; user < USERS; user++) osf.addUser(`User ${user}`, userToken(user));
    const root = join(work, 'source');
    makeProjects(root);
    const targetsFile = join(work, 'targets.json');
    writeFileSync(targetsFile, JSON.stringify([sourceTarget(root), osfTarget(osf)]));

    const runs = new Map<number, BatchRuns>();
    for (const workers of WORKER_COUNTS) runs.set(workers, await runBatches(work, targetsFile, workers, osf));
    printTable(runs);
  } finally {
    await osf.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Each user's one project of FILES files of 16 KiB. */
function makeProjects(root: string): void {
  const chunk = Buffer.alloc(16 * 1024);
  for (let user = 0; user < USERS; user++) {
    const project = join(root, `user-${user}`, 'project');
    mkdirSync(project, { recursive: true });
    for (let file = 0; file < FILES; file++)
      writeFileSync(join(project, `file-${file}.bin`), randomFillSync(chunk));
  }
}

interface BatchRun {
  seconds: number;
  /** CPU seconds each process used during the batch; `workersMain` is the part on the workers' main threads */
  cpu: { workers: number; workersMain: number; api: number; redis: number; fake: number };
  /** the requests the fake OSF received during the batch (from the API and the workers), per job */
  requestsPerJob: number;
  /** the commands Redis ran during the batch (Bull's, the job store's, the API's), per job */
  redisCommandsPerJob: number;
}

/** A worker count's batch run by fresh workers, then again by the same workers, now warm. */
interface BatchRuns {
  fresh: BatchRun;
  warm: BatchRun;
}

/**
 * The batch run twice with `workers` workers: by workers just started, whose first jobs also compile the
 * code they run (V8's optimizing compiler, each worker for itself), and again by the same workers, as a
 * running service's workers meet a burst of users.
 */
async function runBatches(
  work: string,
  targetsFile: string,
  workers: number,
  osf: OsfFake,
): Promise<BatchRuns> {
  const stack = await startBenchStack(join(work, `run-${workers}`), targetsFile, workers);
  const redis = new Redis(stack.redisUrl);
  try {
    const fresh = await runBatch(stack, redis, osf);
    return { fresh, warm: await runBatch(stack, redis, osf) };
  } finally {
    redis.disconnect();
    stack.stop();
  }
}

/**
 * The seconds from starting every user's transfer to the last one finishing, and the CPU time each process
 * spent meanwhile: on one machine the fake upstream, the API and Redis share the cores with the workers, so
 * the speed-up is bounded by what the cores have left (docs/benchmarks.md#scale-out).
 */
async function runBatch(stack: BenchStack, redis: Redis, osf: OsfFake): Promise<BatchRun> {
  const cpuOf = () => ({
    workers: stack.workers.reduce((sum, worker) => sum + cpuSeconds(worker.pid!), 0),
    workersMain: stack.workers.reduce((sum, worker) => sum + mainThreadCpuSeconds(worker.pid!), 0),
    api: cpuSeconds(stack.api.pid!),
    redis: cpuSeconds(stack.redis.pid!),
    fake: processCpuSeconds(),
  });
  const requestsOf = () => osf.servers.reduce((sum, server) => sum + server.requests.length, 0);
  const requestsBefore = requestsOf();
  const commandsBefore = await redisCommands(redis);
  const before = cpuOf();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: USERS }, (_, user) =>
      finishTransfer(stack.base, 'bench_src', 'osf', PROJECT_ID, [userToken(user), userToken(user)], POLL_MS),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = cpuOf();
  const used = (key: keyof BatchRun['cpu']) => after[key] - before[key];
  return {
    seconds,
    cpu: {
      workers: used('workers'),
      workersMain: used('workersMain'),
      api: used('api'),
      redis: used('redis'),
      fake: used('fake'),
    },
    requestsPerJob: (requestsOf() - requestsBefore) / USERS,
    // less the INFO that reads the count
    redisCommandsPerJob: ((await redisCommands(redis)) - commandsBefore - 1) / USERS,
  };
}

/** The commands a Redis server has run since it started. */
async function redisCommands(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, [, calls]) => sum + Number(calls), 0);
}

/** CPU seconds this process (the bench, with the fake upstream) has used so far. */
function processCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function sourceTarget(root: string) {
  const tokens = Object.fromEntries(
    Array.from({ length: USERS }, (_, user) => [userToken(user), `user-${user}`]),
  );
  return benchTarget('bench_src', 'filesystem', { root, tokens }, { transfer_in: [], transfer_out: ['osf'] });
}

function osfTarget(osf: OsfFake) {
  const options = { api_url: osf.api.url, files_url: osf.files.origin };
  return benchTarget('osf', 'osf', options, { transfer_in: ['bench_src'], transfer_out: [] });
}

/**
 * A row for each worker count and phase; the speed-up is over the first worker count's batch in the same
 * phase. The goal's figure is the fresh workers' (docs/benchmarks.md#goals). "At most" is the speed-up the
 * cores would allow a batch that used the CPU this one did: no batch is shorter than its CPU seconds spread
 * over every core.
 */
function printTable(runs: Map<number, BatchRuns>): void {
  console.log(
    `\n${USERS} users, each transferring ${FILES} files of 16 KiB into a fake OSF answering ${LATENCY_MS} ms late, ` +
      `each job polled every ${POLL_MS} ms; CPU seconds used during the batch, on ${availableParallelism()} cores; ` +
      'each batch run by fresh workers, then by the same workers again:\n',
  );
  console.log(
    '| workers | seconds | speed-up | at most | CPU workers (main threads) | CPU API | CPU fake OSF | CPU Redis | cores busy | workers CPU ms a file | requests a job | Redis commands a job |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const first = runs.get(WORKER_COUNTS[0])!;
  for (const phase of ['fresh', 'warm'] as const)
    for (const [workers, batches] of runs)
      printRow(`${workers}, ${phase}`, batches[phase], first[phase].seconds);
}

function printRow(
  label: string,
  { seconds, cpu, requestsPerJob, redisCommandsPerJob }: BatchRun,
  base: number,
) {
  const total = cpu.workers + cpu.api + cpu.fake + cpu.redis;
  const allowed = (availableParallelism() * base) / total;
  const workers = `${cpu.workers.toFixed(1)} (${cpu.workersMain.toFixed(1)})`;
  const columns = [workers, ...[cpu.api, cpu.fake, cpu.redis].map((value) => value.toFixed(1))];
  const perFile = ((cpu.workers * 1000) / (USERS * FILES)).toFixed(2);
  console.log(
    `| ${label} | ${seconds.toFixed(2)} | ${(base / seconds).toFixed(2)}× | ${allowed.toFixed(2)}× | ${columns.join(' | ')} | ${(total / seconds).toFixed(2)} | ${perFile} | ${requestsPerJob.toFixed(1)} | ${redisCommandsPerJob.toFixed(0)} |`,
  );
}

void main();
