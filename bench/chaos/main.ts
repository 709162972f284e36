/**
 * Chaos: a mixed load of downloads, uploads and transfers by several users for a bounded time, while workers
 * are killed (SIGKILL) and restarted and Redis (with its append-only file) is restarted, at random moments.
 * At the end every job must have ended (finished, failed or cancelled, none stuck), every finished zip must
 * verify as a bag, every target must hold each upload or transfer whole or not at all, and no process's memory
 * may have kept growing. It prints those counts.
 *
 *   npm run build && npm run chaos     (CHAOS_SECONDS=180, CHAOS_USERS=4, CHAOS_WORKERS=2)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesystemEntry, writeTargetsFile } from '../../test/support/fs-fixtures';
import { freePort } from '../../test/support/ports';
import { waitForPort } from '../../test/support/redis-server';
import { ROOT, startApp, type RunningProcess } from '../../test/support/stack';
import { runUser, type JobRun } from './load';
import { PersistentRedis, RestartableWorker, rssMiB } from './processes';
import { verifyRuns } from './verify';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 180);
const USERS = Number(process.env.CHAOS_USERS ?? 4);
const WORKERS = Number(process.env.CHAOS_WORKERS ?? 2);
const JOB_LOCK_MS = 5000;
const PROJECTS = ['Alpha', 'Beta', 'Gamma'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lab projects for every user: 20 files of 1 MiB each, in two folders. */
function seedLab(lab: string, users: string[]): void {
  for (const user of users)
    for (const project of PROJECTS)
      for (let i = 0; i < 20; i++) {
        const dir = join(lab, user, project, `set-${i % 2}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `file-${i}.bin`), Buffer.alloc(1 << 20, `${user} ${project} ${i}`));
      }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'presqt-chaos-'));
  const places = prepareTargets(work);
  const stack = await startStack(places);
  const memory = sampleMemory(stack);

  const until = Date.now() + SECONDS * 1000;
  const runs: JobRun[] = [];
  const settings = {
    baseUrl: stack.baseUrl,
    workDir: work,
    projects: PROJECTS,
    jobTimeoutMs: 120_000,
    cancelRate: 0.15,
  };
  const load = Promise.all(places.users.map((user) => runUser(user, settings, until, runs)));
  const events = await disrupt(stack, until);
  await load;
  memory.stop();

  const findings = verifyRuns(
    runs,
    places.lab,
    places.archive,
    join(ROOT, 'test', 'support', 'verify_bag.py'),
  );
  report(runs, events, findings, memory.samples);
  await stack.stop();
  // the targets' data and the zips come to gigabytes
  rmSync(work, { recursive: true, force: true });
  const failed =
    findings.zipsBroken + findings.writesBroken.length + runs.filter((run) => run.ending === 'stuck').length;
  process.exit(failed === 0 ? 0 : 1);
}

interface Places {
  lab: string;
  archive: string;
  data: string;
  redisDir: string;
  users: string[];
  targetsFile: string;
}

/** Two filesystem targets, lab (seeded) and archive, each the other's partner, with a token per user. */
function prepareTargets(work: string): Places {
  const [lab, archive, data, redisDir] = ['lab', 'archive', 'data', 'redis'].map((name) => join(work, name));
  [lab, archive, data, redisDir].forEach((dir) => mkdirSync(dir, { recursive: true }));
  const users = Array.from({ length: USERS }, (_, i) => `u${i + 1}`);
  seedLab(lab, users);
  const tokens = Object.fromEntries(users.map((user) => [`${user}-token`, user]));
  const partners = (other: string) => ({
    supported_transfer_partners: { transfer_in: [other], transfer_out: [other] },
  });
  const targetsFile = writeTargetsFile([
    { ...filesystemEntry('lab', lab, partners('archive')), options: { root: lab, tokens } },
    { ...filesystemEntry('archive', archive, partners('lab')), options: { root: archive, tokens } },
  ]);
  return { lab, archive, data, redisDir, users, targetsFile };
}

interface ChaosStack {
  baseUrl: string;
  redis: PersistentRedis;
  api: RunningProcess;
  workers: RestartableWorker[];
  stop(): Promise<void>;
}

/** Redis with its append-only file, the API and the workers, as a deployment runs them. */
async function startStack(places: Places): Promise<ChaosStack> {
  const redis = new PersistentRedis(await freePort(), places.redisDir);
  await redis.start();
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: redis.url,
    DATA_DIR: places.data,
    TARGETS_FILE: places.targetsFile,
    // several workers on one machine: each takes a free port for its health and metrics
    WORKER_HEALTH_PORT: '0',
    // many requests from one address and token by design; test/e2e/abuse-limits.spec.ts turns them on
    RATE_LIMITS: 'off',
    SECRET_KEY: 'chaos-secret-key-chaos-secret-key',
    JOB_LOCK_MS: String(JOB_LOCK_MS),
    JOB_SWEEP_MS: '2000',
  };
  const api = startApp('api', env);
  await waitForPort(port, 30_000);
  const workers = Array.from({ length: WORKERS }, () => new RestartableWorker(env));
  await Promise.all(workers.map((worker) => worker.start()));
  const stop = async () => {
    api.child.kill('SIGTERM');
    await Promise.all([api.exited, ...workers.map((worker) => worker.stop())]);
    await redis.stop();
  };
  return { baseUrl: `http://127.0.0.1:${port}`, redis, api, workers, stop };
}

/** Each process's resident memory, sampled every second. */
function sampleMemory({ api, workers }: ChaosStack): { samples: Map<string, number[]>; stop(): void } {
  const samples = new Map<string, number[]>();
  const timer = setInterval(() => {
    const note = (name: string, pid?: number) =>
      samples.set(name, [...(samples.get(name) ?? []), rssMiB(pid)]);
    note('api', api.child.pid);
    workers.forEach((worker, i) => note(`worker ${i + 1}`, worker.current?.child.pid));
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}

/** Until shortly before the end: every 8 to 20 s, a worker killed (7 in 10) or Redis restarted. */
async function disrupt(
  { workers, redis }: ChaosStack,
  until: number,
): Promise<{ workerKills: number; redisRestarts: number }> {
  const events = { workerKills: 0, redisRestarts: 0 };
  while (Date.now() < until - 10_000) {
    await sleep(8000 + Math.random() * 12_000);
    if (Math.random() < 0.7) {
      events.workerKills++;
      await workers[Math.floor(Math.random() * workers.length)].crash();
    } else {
      events.redisRestarts++;
      await redis.restart();
    }
  }
  return events;
}

function report(
  runs: JobRun[],
  events: { workerKills: number; redisRestarts: number },
  findings: ReturnType<typeof verifyRuns>,
  memory: Map<string, number[]>,
): void {
  const count = (kind: string, ending: string) =>
    runs.filter((run) => run.kind === kind && run.ending === ending).length;
  console.log(
    `\n${SECONDS} s, ${USERS} users, ${WORKERS} workers: ${events.workerKills} worker kills, ${events.redisRestarts} Redis restarts\n`,
  );
  console.log('| job | finished | failed | cancelled | stuck | not started |');
  console.log('|---|---|---|---|---|---|');
  for (const kind of ['download', 'upload', 'transfer'])
    console.log(
      `| ${kind} | ${['finished', 'failed', 'cancelled', 'stuck', 'not started'].map((ending) => count(kind, ending)).join(' | ')} |`,
    );
  const reasons = new Map<string, number>();
  for (const run of runs.filter((each) => each.ending === 'failed')) {
    const reason = `${run.kind}: ${run.message}`;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  for (const [reason, times] of reasons) console.log(`  failed ${times}× ${reason}`);
  console.log(
    `\nzips verified ${findings.zipsVerified}, broken ${findings.zipsBroken}; writes whole ${findings.writesWhole}, broken ${findings.writesBroken.length}`,
  );
  for (const problem of findings.writesBroken) console.log(`  ${problem}`);
  console.log('\n| process | RSS first minute peak (MiB) | RSS last minute peak (MiB) |');
  console.log('|---|---|---|');
  for (const [name, samples] of memory) {
    const peak = (values: number[]) => Math.max(0, ...values).toFixed(0);
    console.log(`| ${name} | ${peak(samples.slice(0, 60))} | ${peak(samples.slice(-60))} |`);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
