import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { lockSettings } from '@app/jobs';
import request from 'supertest';
import { fsId, writeTargetsFile, writeTree, partneredEntries } from '../support/fs-fixtures';
import { pollUntilDone, watchUntil } from '../support/jobs';
import { startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';

const TOKENS = { 'presqt-source-token': 'alice-token', 'presqt-destination-token': 'alice-token' };
const JOB_LOCK_MS = 1500;
/** what the test's own polling and the processes' start of the job add to a measured takeover */
const MARGIN_MS = 250;
const FILES = 40;
const FILE_BYTES = 12 << 20;
const PROGRESS = ['job_percentage', 'files_finished', 'bytes_finished'] as const;

/**
 * A worker killed mid-transfer, a second worker running: the second takes the job over within JOB_LOCK_MS,
 * the progress the user polls never goes back, and the result reads as if the job had run uninterrupted.
 */
describe('takeover of a killed worker', () => {
  let stack: Stack;
  let redis: Redis;
  let destination: string;
  const workers: RunningProcess[] = [];
  /** the workers alive, and how much of each one's output came before the current transfer */
  let live: { worker: RunningProcess; before: number }[] = [];
  const saidSince = ({ worker, before }: (typeof live)[number], pattern: RegExp) =>
    pattern.test(worker.output().slice(before));

  let source: string;

  beforeAll(async () => {
    source = mkdtempSync(join(tmpdir(), 'presqt-takeover-src-'));
    destination = mkdtempSync(join(tmpdir(), 'presqt-takeover-dst-'));
    const files: Record<string, Buffer> = {};
    const bytes = randomBytes(FILE_BYTES);
    // different bytes per file (a prefix) without generating them all
    for (let i = 0; i < FILES; i++)
      files[`alice/Data/part-${String(i).padStart(2, '0')}.bin`] = Buffer.concat([Buffer.from([i]), bytes]);
    writeTree(source, files);
    stack = await startStack({
      env: {
        TARGETS_FILE: writeTargetsFile(partneredEntries(source, destination)),
        JOB_LOCK_MS: String(JOB_LOCK_MS),
        FILE_TRANSFERS: '2',
        // one thread copies every file: a transfer of the 480 MiB between local disks on two could end before
        // the lock's first renewal, the moment the first test waits for
        HASH_THREADS: '1',
      },
    });
    redis = new Redis(stack.env.REDIS_URL);
    live = [{ worker: stack.worker!, before: 0 }];
  });

  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await redis?.quit();
    await stack?.stop();
    // half a gigabyte and more each: not left in the temporary directory
    for (const dir of [source, destination]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts one more worker, then a transfer of Data into `project`, a new one; waits for its first file. */
  const startTransfer = async (project: string): Promise<void> => {
    const another = startApp('worker', stack.env);
    workers.push(another);
    await waitForOutput(another, /Worker ready/);
    live = [...live, { worker: another, before: 0 }].map(({ worker }) => ({
      worker,
      before: worker.output().length,
    }));
    await request(stack.baseUrl)
      .post('/api_v1/targets/dst/resources/')
      .set({
        ...TOKENS,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
      })
      .send({ source_target_name: 'src', source_resource_id: fsId('Data'), keywords: [] })
      .expect(202);
    const dir = join(destination, 'alice', project);
    await watchUntil(
      () => existsSync(dir) && readdirSync(dir).some((name) => name.startsWith('part-')),
      'writing a file',
    );
  };

  /** Fails the test unless the job is still in progress: a kill after its end leaves nothing to take over. */
  const expectUnfinished = async (kind: string) => {
    const res = await request(stack.baseUrl).get(`/api_v1/job_status/${kind}/`).set(TOKENS);
    // with the body, which says how the job ended
    expect(`${res.status} ${JSON.stringify(res.body)}`).toMatch(/^202 /);
  };

  /** Kills the worker running the job once `moment` holds; answers how long until another took it over. */
  const killRunning = async (moment: () => Promise<boolean>, kind = 'transfer'): Promise<number> => {
    const started = new RegExp(`running ${kind} job`);
    await watchUntil(moment, `the moment to kill the ${kind}'s worker`);
    const running = live.find((one) => saidSince(one, started))!;
    live = live.filter((one) => one !== running);
    running.worker.child.kill('SIGKILL');
    const killedAt = Date.now();
    await expectUnfinished(kind);
    await watchUntil(
      () => live.some((one) => saidSince(one, started)),
      `another worker taking the ${kind} over`,
    );
    const takeoverMs = Date.now() - killedAt;
    await running.worker.exited;
    return takeoverMs;
  };

  /** Records the progress fields the user sees while `work` runs. */
  const watchProgress = async <T>(
    kind: string,
    work: () => Promise<T>,
  ): Promise<{ result: T; backwards: string[] }> => {
    const backwards: string[] = [];
    let watching = true;
    const watcher = (async () => {
      const last: Record<string, number> = {};
      while (watching) {
        const res = await request(stack.baseUrl).get(`/api_v1/job_status/${kind}/`).set(TOKENS);
        if (res.status === 202) {
          for (const field of PROGRESS) {
            const value = Number(res.body[field]);
            if (value < (last[field] ?? 0)) backwards.push(`${field} ${last[field]} -> ${value}`);
            last[field] = value;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      return { result: await work(), backwards };
    } finally {
      watching = false;
      await watcher;
    }
  };

  /** What the user sees of the finished transfer: as if it had run uninterrupted. */
  const expectUninterrupted = (done: request.Response, project: string) => {
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      files_finished: FILES,
      bytes_finished: FILES * (FILE_BYTES + 1),
      resources_ignored: [],
      resources_updated: [],
      failed_fixity: [],
      fixity_unverified: [],
    });
    const names = readdirSync(join(destination, 'alice', project));
    expect(names.filter((name) => name.startsWith('part-'))).toHaveLength(FILES);
    const metadata = JSON.parse(
      readFileSync(join(destination, 'alice', project, 'PRESQT_FTS_METADATA.json'), 'utf8'),
    ) as { actions: { files: Record<string, unknown[]> }[] };
    expect(metadata.actions).toHaveLength(1);
    expect(metadata.actions[0].files.created).toHaveLength(FILES);
    expect(metadata.actions[0].files.ignored).toEqual([]);
  };

  it('takes the job over within JOB_LOCK_MS even when killed at the worst moment', async () => {
    const bull = `${stack.env.REDIS_PREFIX}:bull:transfer`;
    const { result, backwards } = await watchProgress('transfer', async () => {
      await startTransfer('Data');
      const [jobId] = await redis.lrange(`${bull}:active`, 0, -1);
      // The worst moment: the lock just renewed (its time to live within 30 ms of the whole lock duration),
      // and a stalled check just run, whose guard key holds off the next check for a whole interval. The guard
      // is set here rather than waited for: the checks (every 75 ms) and the lock's renewal (every 450 ms) run
      // on one worker's timers, and the two moments stayed apart for a whole job in one run of four. The
      // renewal comes within 450 ms; a transfer between local disks may be over in a second or two.
      const { lockDuration, stalledInterval } = lockSettings(JOB_LOCK_MS);
      const worstMoment = async () => {
        const lock = await redis.pttl(`${bull}:${jobId}:lock`);
        if (lock === -2) throw new Error('the transfer ended before its lock was renewed');
        if (lock < lockDuration - 30) return false;
        await redis.set(`${bull}:stalled-check`, 'held', 'PX', stalledInterval);
        return true;
      };
      const takeoverMs = await killRunning(worstMoment);
      return { takeoverMs, done: await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS) };
    });
    console.log(`takeover began ${result.takeoverMs} ms after the kill (JOB_LOCK_MS ${JOB_LOCK_MS})`);
    expect(result.takeoverMs).toBeLessThanOrEqual(JOB_LOCK_MS + MARGIN_MS);
    expect(backwards).toEqual([]);
    expectUninterrupted(result.done, 'Data');
  });

  it('reports the files the killed run wrote as created, not ignored', async () => {
    const checkpoints = async () => {
      const [key] = await redis.keys(`${stack.env.REDIS_PREFIX}:job:transfer:*:checkpoints`);
      return key ? new Set(await redis.hkeys(key)) : new Set<string>();
    };
    const project = join(destination, 'alice', 'Data (2)');
    // the moment that lost this: a file renamed into place whose checkpoint the killed run never wrote
    const writtenUncheckpointed = async () => {
      const done = await checkpoints();
      const written = readdirSync(project).filter((name) => name.startsWith('part-'));
      if (written.length === FILES && written.every((name) => done.has(`/${name}`)))
        throw new Error('every file was written and checkpointed before the moment came');
      return written.some((name) => !done.has(`/${name}`));
    };
    const { result, backwards } = await watchProgress('transfer', async () => {
      await startTransfer('Data (2)');
      const takeoverMs = await killRunning(writtenUncheckpointed);
      return { takeoverMs, done: await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS) };
    });
    console.log(`takeover began ${result.takeoverMs} ms after the kill`);
    expect(backwards).toEqual([]);
    expectUninterrupted(result.done, 'Data (2)');
  });

  it('never shows less progress when a resumed download copies what the killed run zipped', async () => {
    const another = startApp('worker', stack.env);
    workers.push(another);
    await waitForOutput(another, /Worker ready/);
    live = [...live, { worker: another, before: 0 }].map(({ worker }) => ({
      worker,
      before: worker.output().length,
    }));
    const { result, backwards } = await watchProgress('download', async () => {
      await request(stack.baseUrl)
        .get(`/api_v1/targets/src/resources/${fsId('Data')}.zip/`)
        .set({ ...TOKENS, 'presqt-email-opt-in': '' })
        .expect(202);
      await killRunning(async () => {
        const res = await request(stack.baseUrl).get('/api_v1/job_status/download/').set(TOKENS);
        // a finished job's status shows every file finished too
        if (res.status !== 202) throw new Error(`the download ended before the kill: ${res.status}`);
        return Number(res.body.files_finished) >= FILES / 2;
      }, 'download');
      return pollUntilDone(stack.baseUrl, '/api_v1/job_status/download/', TOKENS);
    });
    expect(backwards).toEqual([]);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ files_finished: FILES, bytes_finished: FILES * (FILE_BYTES + 1) });
  });
});
