/**
 * Chaos: a mixed load of downloads, uploads and transfers by several users for a bounded time, at random
 * moments killing a worker (SIGKILL, then started again), killing the Redis primary (SIGKILL: the sentinels
 * promote its replica, and it comes back a few seconds later as the new primary's replica) or restarting all
 * of Redis (SIGTERM, append-only files on). Redis runs as in production with Sentinel: a primary, a replica
 * and three sentinels (test/support/redis-sentinel.ts). At the end every job accepted must have ended
 * (finished, failed or cancelled; none lost, none stuck), every finished zip must verify as a bag, every
 * target must hold each upload or transfer whole or not at all, and no process's memory may have kept
 * growing. It prints those counts.
 *
 *   npm run build && npm run chaos     (CHAOS_SECONDS=180, CHAOS_USERS=4, CHAOS_WORKERS=2)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_KINDS } from '@app/job-kinds';
import { verifyRuns, type Findings } from '../../test/support/job-outcomes';
import { freePort } from '../../test/support/ports';
import { SentinelSet } from '../../test/support/redis-sentinel';
import { waitForPort } from '../../test/support/redis-server';
import { ROOT, startApp, type RunningProcess } from '../../test/support/stack';
import { prepareLab, runUser, type JobRun, type Lab } from '../../test/support/user-jobs';
import { watchApi, type OutageAnswers } from './api-watch';
import { RestartableWorker, rssMiB } from './processes';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 180);
const USERS = Number(process.env.CHAOS_USERS ?? 4);
const WORKERS = Number(process.env.CHAOS_WORKERS ?? 2);
const JOB_LOCK_MS = 5000;
const PROJECTS = ['Alpha', 'Beta', 'Gamma'];
/** how long a killed primary stays down after the failover, as a host takes to come back */
const PRIMARY_DOWN_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'presqt-chaos-'));
  const lab = prepareLab(work, USERS, PROJECTS);
  const stack = await startStack(lab, join(work, 'data'));
  const memory = sampleMemory(stack);
  const watch = watchApi(stack.baseUrl);

  const until = Date.now() + SECONDS * 1000;
  const runs: JobRun[] = [];
  const settings = {
    baseUrl: stack.baseUrl,
    workDir: work,
    projects: PROJECTS,
    jobTimeoutMs: 120_000,
    cancelRate: 0.15,
  };
  const load = Promise.all(lab.users.map((user) => runUser(user, settings, until, runs)));
  const events = await disrupt(stack, until);
  await load;
  memory.stop();
  const outages = watch.stop();

  const findings = await verifyRuns(
    runs,
    lab.lab,
    lab.archive,
    join(ROOT, 'test', 'support', 'verify_bag.py'),
  );
  report(runs, events, findings, memory.samples);
  reportOutages(outages);
  await stack.stop();
  // the targets' data and the zips come to gigabytes
  rmSync(work, { recursive: true, force: true });
  const unended = runs.filter((run) => run.ending === 'stuck' || run.ending === 'lost').length;
  const crashes = stack.workers.reduce((sum, worker) => sum + worker.unexpectedExits, 0);
  if (crashes > 0) console.log(`\n${crashes} worker(s) exited by themselves`);
  // an error of our own (500) where the API should have answered the status or 503
  const errors = [...outages.unexpected].filter(([status]) => status >= 500).length;
  const failed = findings.zipsBroken + findings.writesBroken.length + unended + crashes + errors;
  if (failed > 0) console.log(`\nthe processes' logs and the jobs: ${keepLogs(stack, runs)}`);
  process.exit(failed === 0 ? 0 : 1);
}

interface ChaosStack {
  baseUrl: string;
  redis: SentinelSet;
  api: RunningProcess;
  workers: RestartableWorker[];
  stop(): Promise<void>;
}

/** Redis with Sentinel, the API and the workers, as a deployment runs them. */
async function startStack(lab: Lab, dataDir: string): Promise<ChaosStack> {
  mkdirSync(dataDir, { recursive: true });
  const redis = await SentinelSet.start();
  const port = await freePort();
  const env = {
    ...redis.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    TARGETS_FILE: lab.targetsFile,
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

/** Writes every process's output and how each job ended into a new folder; answers its path. */
function keepLogs({ api, workers }: ChaosStack, runs: JobRun[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'presqt-chaos-logs-'));
  writeFileSync(join(dir, 'api.log'), api.output());
  workers.forEach((worker, i) =>
    worker.started.forEach((run, n) =>
      writeFileSync(join(dir, `worker-${i + 1}.${n + 1}.log`), run.output()),
    ),
  );
  const jobs = runs.map(({ user, kind, ending, message, destinationId }) => ({
    user,
    kind,
    ending,
    message,
    destinationId,
  }));
  writeFileSync(join(dir, 'jobs.json'), JSON.stringify(jobs, null, 1));
  return dir;
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

interface Disruptions {
  workerKills: number;
  /** for each primary killed, the seconds until the sentinels named another (null: no failover in 30 s) */
  failovers: (number | null)[];
  redisRestarts: number;
}

/**
 * Until shortly before the end, every 8 to 20 s: a worker killed (40%), the primary killed (45%) or all of
 * Redis restarted (15%).
 */
async function disrupt({ workers, redis }: ChaosStack, until: number): Promise<Disruptions> {
  const events: Disruptions = { workerKills: 0, failovers: [], redisRestarts: 0 };
  while (Date.now() < until - 10_000) {
    await sleep(8000 + Math.random() * 12_000);
    const dice = Math.random();
    if (dice < 0.4) {
      events.workerKills++;
      await workers[Math.floor(Math.random() * workers.length)].crash();
    } else if (dice < 0.85) {
      events.failovers.push(await killPrimary(redis));
    } else {
      events.redisRestarts++;
      await redis.restartAll();
    }
  }
  return events;
}

/** Kills the primary, waits for the failover, and brings the killed one back a while later. */
async function killPrimary(redis: SentinelSet): Promise<number | null> {
  const killedAt = Date.now();
  const former = await redis.killPrimary();
  const seconds = await redis.failover(former).then(
    () => (Date.now() - killedAt) / 1000,
    () => null,
  );
  await sleep(PRIMARY_DOWN_MS);
  await redis.restart(former);
  return seconds;
}

function report(
  runs: JobRun[],
  events: Disruptions,
  findings: Findings,
  memory: Map<string, number[]>,
): void {
  const count = (kind: string, ending: string) =>
    runs.filter((run) => run.kind === kind && run.ending === ending).length;
  const failovers = events.failovers.map((seconds) =>
    seconds === null ? 'none' : `${seconds.toFixed(1)} s`,
  );
  console.log(
    `\n${SECONDS} s, ${USERS} users, ${WORKERS} workers: ${events.workerKills} worker kills, ` +
      `${events.failovers.length} primary kills (failover after ${failovers.join(', ') || '-'}), ` +
      `${events.redisRestarts} Redis restarts\n`,
  );
  console.log(
    '| job | accepted | finished | failed | of them retryable | cancelled | lost | stuck | refused (not accepted) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const kind of JOB_KINDS) {
    const accepted = runs.filter((run) => run.kind === kind && run.ending !== 'not started').length;
    // a failure the user can do something about: its message tells them to start the job again
    const retryable = runs.filter(
      (run) => run.kind === kind && run.ending === 'failed' && /again/.test(run.message ?? ''),
    ).length;
    const counts = [count(kind, 'finished'), count(kind, 'failed'), retryable];
    for (const ending of ['cancelled', 'lost', 'stuck']) counts.push(count(kind, ending));
    console.log(`| ${kind} | ${accepted} | ${counts.join(' | ')} | ${count(kind, 'not started')} |`);
  }
  const reasons = new Map<string, number>();
  for (const run of runs.filter((each) => ['failed', 'lost', 'stuck'].includes(each.ending))) {
    const reason = `${run.kind} ${run.ending}: ${run.message}`;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  for (const [reason, times] of reasons) console.log(`  ${times}× ${reason}`);
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

/** How long a client polling its job was answered 503 (or nothing), and how long it waited at most. */
function reportOutages({ stretches, slowestMs, unexpected }: OutageAnswers): void {
  const lasted = stretches.map((seconds) => `${seconds.toFixed(1)} s`).join(', ') || 'none';
  console.log(`\na job's status, asked every 200 ms: 503 for ${lasted}; slowest answer ${slowestMs} ms`);
  for (const [status, times] of unexpected) console.log(`  ${times}× answered ${status}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
