import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_KINDS, type JobKind } from '@app/job-kinds';
import { verifyRuns } from '../support/job-outcomes';
import { SentinelSet } from '../support/redis-sentinel';
import { ROOT, startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';
import {
  followJob,
  prepareLab,
  prepareStart,
  type JobRun,
  type Lab,
  type LoadSettings,
  type StartAnswer,
} from '../support/user-jobs';

/** A resource listing: the rate limits count it in Redis, and it needs Redis for nothing else. */
const LISTING = '/api_v1/targets/lab/resources/';
/** What a user waits at most for any answer while no primary is reachable. */
const ANSWER_WITHIN_MS = 2000;
/** What a user waits at most for a job's acceptance (202) once the new primary answers. */
const ACCEPTED_WITHIN_MS = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One answer of the API while the failover goes on. */
interface Probe {
  path: string;
  /** when the request was sent (Date.now()) */
  sentAt: number;
  status: number;
  elapsedMs: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function probe(url: string, path: string, headers: Record<string, string> = {}): Promise<Probe> {
  const started = Date.now();
  const answer = await fetch(`${url}${path}`, {
    headers,
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS + 5000),
  });
  const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
  const elapsedMs = Date.now() - started;
  const retryAfter = answer.headers.get('retry-after');
  return { path, sentAt: started, status: answer.status, elapsedMs, retryAfter, body };
}

/**
 * How the primary is lost, one after the other on the same processes: killed (its connections refused at
 * once), then frozen (its connections hang unanswered until the sentinels announce the new primary).
 */
const LOSSES: { loss: string; lose: (set: SentinelSet) => Promise<number> }[] = [
  { loss: 'killed (SIGKILL)', lose: (set: SentinelSet) => set.killPrimary() },
  { loss: 'frozen (SIGSTOP)', lose: (set: SentinelSet) => set.freezePrimary() },
];
/** each loss has users of its own: 3 whose jobs start before it, 1 during the failover, 1 after */
const USERS_PER_LOSS = 5;

/**
 * Redis Sentinel with real processes: a primary, a replica and three sentinels (1 s to call a primary down);
 * the API and two workers find the primary through the sentinels. Jobs of every kind run when the primary is
 * lost; more are started while the sentinels fail over, and after.
 */
describe('Redis Sentinel, the primary lost while jobs run (real Redis, sentinels, API and two workers)', () => {
  let sentinels: SentinelSet;
  let stack: Stack;
  let secondWorker: RunningProcess;
  let lab: Lab;
  let settings: LoadSettings;

  beforeAll(async () => {
    sentinels = await SentinelSet.start();
    const work = mkdtempSync(join(tmpdir(), 'presqt-failover-'));
    // 24 files of 1 MiB a project: long enough jobs to be mid-run when the primary dies
    lab = prepareLab(work, USERS_PER_LOSS * LOSSES.length, ['Data'], 24);
    stack = await startStack({
      env: {
        ...sentinels.env,
        TARGETS_FILE: lab.targetsFile,
        // one file at a time, so that the jobs are still running when the primary dies
        FILE_TRANSFERS: '1',
        // a job of each kind at a time per worker: some jobs wait in the queues when the primary dies
        JOB_CONCURRENCY: '1',
        JOB_LOCK_MS: '10000',
        JOB_SWEEP_MS: '1000',
        // the limits counted in Redis, as in production, high enough that this test's requests stay under them
        RATE_LIMITS: 'on',
        RATE_LIMIT_JOB_STARTS: '100000',
        RATE_LIMIT_JOB_STARTS_PER_ADDRESS: '100000',
        RATE_LIMIT_LISTINGS: '100000',
        RATE_LIMIT_LISTINGS_PER_ADDRESS: '100000',
        // REDIS_TIMEOUT_MS is left at its default: a frozen primary's 503 must come within 2 s as shipped
      },
      startTimeoutMs: 60_000,
    });
    secondWorker = startApp('worker', stack.env);
    await waitForOutput(secondWorker, /Worker ready/, 60_000);
    settings = {
      baseUrl: stack.baseUrl,
      workDir: work,
      projects: ['Data'],
      jobTimeoutMs: 90_000,
      cancelRate: 0,
    };
  }, 120_000);

  afterAll(async () => {
    secondWorker?.child.kill('SIGTERM');
    await secondWorker?.exited;
    await stack?.stop();
    await sentinels?.stop();
  });

  /** A job's start, its request built (see prepareStart) and not sent yet. */
  interface PreparedStart {
    run: JobRun;
    send: () => Promise<StartAnswer>;
  }
  const prepare = (users: string[]): Promise<PreparedStart[]> =>
    Promise.all(
      users.flatMap((user) =>
        JOB_KINDS.map(async (kind) => {
          const run: JobRun = { user, kind, ending: 'not started' };
          return { run, send: await prepareStart(run, 1, settings) };
        }),
      ),
    );

  /**
   * Starts a job, the primary reachable or not: the attempts go on until one is accepted (into `accepted`);
   * the answer of every attempt goes into `attempts`.
   */
  const start = async (
    { run, send }: PreparedStart,
    accepted: JobRun[],
    attempts: Probe[],
  ): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { answer, elapsedMs } = await send();
      const body = (await answer?.json().catch(() => ({}))) as Record<string, unknown>;
      attempts.push({
        path: `${run.kind} start`,
        sentAt: Date.now() - elapsedMs,
        status: answer?.status ?? 0,
        elapsedMs,
        retryAfter: answer?.headers.get('retry-after') ?? null,
        body,
      });
      if (answer?.status === 202) {
        accepted.push(run);
        return;
      }
      if (Date.now() > deadline)
        throw new Error(
          `${run.user}'s ${run.kind} was not accepted within 60 s: ${JSON.stringify(attempts.slice(-1))}`,
        );
      await sleep(300);
    }
  };

  /**
   * Asks for a job's status and a listing (counted by the rate limits in Redis, needing no Redis of its own)
   * one after the other, and readiness in a loop of its own, until `done` resolves, recording every answer.
   * Readiness apart: behind a job status and a listing, which may each wait for Redis, it was first asked
   * after the failover in a CI run. Only readiness apart: a loop for each of the three put enough requests on
   * the API to hold a 503 past its 2 s bound.
   */
  const watch = async (user: string, done: Promise<unknown>): Promise<Probe[]> => {
    const headers = { 'presqt-source-token': `${user}-token` };
    const probes: Probe[] = [];
    let over = false;
    void done.then(() => (over = true));
    const askUntilOver = async (paths: string[], asked?: Record<string, string>) => {
      while (!over) {
        for (const path of paths) probes.push(await probe(stack.baseUrl, path, asked));
        await sleep(100);
      }
    };
    await Promise.all([
      askUntilOver(['/api_v1/job_status/download.json/', LISTING], headers),
      askUntilOver(['/health/ready']),
    ]);
    return probes;
  };

  /**
   * Waits until `count` of the runs (accepted so far) are in progress: queued or mid-run. Not "with some files
   * done": the jobs of 24 MiB between two disks can all finish between two polls on a quiet machine.
   */
  const untilRunning = async (runs: JobRun[], count: number): Promise<void> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const bodies = await Promise.all(
        [...runs].map(async ({ user, kind }) => {
          const path = `/api_v1/job_status/${kind === 'download' ? 'download.json' : kind}/`;
          const token = `${user}-token`;
          const headers = { 'presqt-source-token': token, 'presqt-destination-token': token };
          return (await probe(stack.baseUrl, path, headers)).body;
        }),
      );
      const running = bodies.filter((body) => body.status === 'in_progress');
      if (running.length >= count) return;
      if (Date.now() > deadline)
        throw new Error(`fewer than ${count} jobs running: ${JSON.stringify(bodies)}`);
      await sleep(50);
    }
  };

  it.each(LOSSES.map((loss, round) => ({ ...loss, round })))(
    'the primary $loss: ends every job accepted before, during and after, and answers 503 meanwhile',
    async ({ lose, round }) => {
      const users = lab.users.slice(round * USERS_PER_LOSS, (round + 1) * USERS_PER_LOSS);
      const [before, during, after] = [users.slice(0, 3), users.slice(3, 4), users.slice(4)];
      const accepted: JobRun[] = [];
      const attempts: Probe[] = [];
      const starting = (starts: PreparedStart[]) =>
        Promise.all(starts.map((prepared) => start(prepared, accepted, attempts)));
      const [startsBefore, startsDuring, startsAfter] = await Promise.all(
        [before, during, after].map(prepare),
      );
      // every start before the loss is answered 202 first: one still sending its 12 MiB bag when the primary is
      // killed is a start during the loss, which the user of `during` is for
      await starting(startsBefore);
      await untilRunning(accepted, 3);
      const lostAt = Date.now();
      const formerPort = await lose(sentinels);
      const startingDuring = starting(startsDuring);
      const failover = sentinels.failover(formerPort);
      // the API answers again once it has found the new primary: watch a while longer than the failover
      const probes = await watch(
        before[0],
        failover.then(() => sleep(3000)),
      );
      await Promise.all([failover, startingDuring]);
      // back as a replica of the new primary, as an operator (or systemd) would bring it back
      await sentinels.kill(formerPort);
      await sentinels.restart(formerPort);
      await starting(startsAfter);
      expect(accepted).toHaveLength(users.length * JOB_KINDS.length);

      const ended = await Promise.all(accepted.map((run) => followJob(run, settings)));

      // Asked while no primary was reachable: 503 with a JSON error and Retry-After within 2 s, never a hang.
      // Not timed: readiness, which writes a probe file on a disk the jobs keep busy; an upload, answered
      // once the client has sent its whole body (it is read to the end, as some clients send it all first).
      const answers = [...probes, ...attempts].filter(({ sentAt }) => sentAt >= lostAt);
      // A start accepted once the new primary answers does more than a refusal (a replica confirms it, up to
      // 500 ms): it is held to not hanging, on a machine the jobs keep busy.
      const timed = answers.filter(({ path }) => path !== '/health/ready' && path !== 'upload start');
      const limit = ({ path, status }: Probe) =>
        path.endsWith(' start') && status === 202 ? ACCEPTED_WITHIN_MS : ANSWER_WITHIN_MS;
      expect(timed.filter((answer) => answer.elapsedMs >= limit(answer))).toEqual([]);
      // a listing is answered as usual: the rate limits let it through uncounted rather than wait or refuse it
      const listings = answers.filter(({ path }) => path === LISTING);
      expect(listings.length).toBeGreaterThan(0);
      expect(listings.filter(({ status }) => status !== 200)).toEqual([]);
      const unavailable = answers.filter(({ path, status }) => path !== '/health/ready' && status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      for (const answer of unavailable) {
        expect(answer.body).toEqual({ error: expect.stringMatching(/Redis/) });
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
      const unready = probes.filter(({ path, status }) => path === '/health/ready' && status === 503);
      expect(unready.length).toBeGreaterThan(0);
      expect(unready[0].body).toMatchObject({ error: 'not ready: redis' });
      // nothing else: no 500, and no "in progress" for a start answered 503 before
      expect(answers.filter(({ status }) => ![200, 202, 503].includes(status))).toEqual([]);

      // every job accepted ended: finished, or failed saying the user may start it again; none lost or stuck
      const endings = ended.map(({ user, kind, ending, message }) => ({ user, kind, ending, message }));
      expect(
        endings.filter(
          ({ ending, message }) =>
            !(ending === 'finished' || (ending === 'failed' && /again/.test(message ?? ''))),
        ),
      ).toEqual([]);
      // every finished zip verifies as a bag; every write is whole and made once, nothing else at the target
      const findings = await verifyRuns(
        ended,
        lab.lab,
        lab.archive,
        join(ROOT, 'test', 'support', 'verify_bag.py'),
      );
      expect(findings.writesBroken).toEqual([]);
      expect(findings.zipsBroken).toBe(0);
      const finished = (kind: JobKind) =>
        ended.filter((run) => run.kind === kind && run.ending === 'finished');
      expect(findings.zipsVerified).toBe(finished('download').length);
      expect(findings.writesWhole).toBe(finished('upload').length + finished('transfer').length);
    },
    240_000,
  );
});
