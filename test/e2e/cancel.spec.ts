import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { JOB_KINDS, JobStore, ticketFor, type JobKind } from '@app/jobs';
import { makeBagZip } from '../support/bags';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntil } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

/** Users cancelling at once, each with a download, an upload and a transfer of their own going. */
const USERS = 3;
/** Cancels of each kind. */
const CANCELS = 50;
/**
 * The resource every job moves: FOLDERS folders of FILES_PER_FOLDER files of FILE_BYTES. Big enough that a job
 * runs long after the first files are done: with 1 MiB files, a transfer between local disks was over so soon
 * that a third of the cancels found it finished.
 */
const FOLDERS = 2;
const FILES_PER_FOLDER = 32;
const FILE_BYTES = 2 << 20;
const FILES = FOLDERS * FILES_PER_FOLDER;
/** How long a cancelled job may take to read as ended, from its cancel. */
const END_WITHIN_MS = 5000;
/** The latest moment after the 202 that a job is cancelled at. */
const LATEST_MS = 1000;
const SECRET_KEY = 'cancel-test-secret';

/** One user's jobs of one kind, run one after another: the tokens that start and find them, where they write. */
interface Lane {
  kind: JobKind;
  user: number;
  tokens: Record<string, string>;
  /** the destination user's folder (uploads and transfers) */
  folder?: string;
}

/** How one cancel went. */
interface Cancel {
  kind: JobKind;
  moment: string;
  /** 200, or 406: the job had finished (or was committing) first */
  answer: number;
  /** from the cancel to the first status that reads as ended */
  endedMs: number;
  /** how the target (or for a download, the job's directory) differed from before, when the job read as ended */
  left: string[];
}

/**
 * Cancels 50 downloads, 50 uploads and 50 transfers, each at its own moment (0 to 1 s after the 202, or as a
 * file has finished), three users' jobs of each kind at once against filesystem targets. Each must read as
 * ended within 5 s of its cancel, and only once the target is as before (no project, no new file, no claim,
 * each replaced file back); afterwards no run may be left in the queues, and the worker's memory must be back
 * near its idle level, with no file left open. On the code before these fixes, the first three cancelled
 * downloads hung for ever, holding the worker's three download slots, so the next download never started.
 */
describe('cancelling jobs at any moment (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let redis: Redis;
  let destination: string;
  let bag: Buffer;
  /** how long a job of each kind takes alone, from its 202 */
  const alone = new Map<JobKind, number>();
  let idle: { rssMiB: number; openFiles: number };

  beforeAll(async () => {
    const source = mkdtempSync(join(tmpdir(), 'presqt-cancel-src-'));
    destination = mkdtempSync(join(tmpdir(), 'presqt-cancel-dst-'));
    const files: Record<string, Buffer> = {};
    for (let folder = 0; folder < FOLDERS; folder++)
      for (let i = 0; i < FILES_PER_FOLDER; i++) files[`${folder}/f-${i}.bin`] = randomBytes(FILE_BYTES);
    // every user reads the same resource, alice's Data, with tokens of their own
    writeTree(join(source, 'alice', 'Data'), files);
    bag = await makeBagZip({
      files: Object.fromEntries(Object.entries(files).map(([path, bytes]) => [`Upload/${path}`, bytes])),
    });
    const sourceTokens: Record<string, string> = { warm: 'alice' };
    const destinationTokens: Record<string, string> = { warm: 'warm' };
    for (let user = 0; user < USERS; user++) {
      sourceTokens[`d${user}`] = sourceTokens[`t${user}`] = 'alice';
      destinationTokens[`u${user}`] = `up${user}`;
      destinationTokens[`t${user}`] = `tr${user}`;
      resetFolder(join(destination, `up${user}`), 'upload');
      resetFolder(join(destination, `tr${user}`), 'transfer');
    }
    const partners = (name: string) => ({
      supported_transfer_partners: { transfer_in: [name], transfer_out: [name] },
    });
    const targetsFile = writeTargetsFile([
      filesystemEntry('src', source, { ...partners('dst'), options: { root: source, tokens: sourceTokens } }),
      filesystemEntry('dst', destination, {
        ...partners('src'),
        options: { root: destination, tokens: destinationTokens },
      }),
    ]);
    stack = await startStack({
      env: {
        TARGETS_FILE: targetsFile,
        JOB_CONCURRENCY: String(USERS),
        JOB_SWEEP_MS: '1000',
        SECRET_KEY,
      },
    });
    http = request(stack.baseUrl);
    redis = new Redis(process.env.PRESQT_TEST_REDIS_URL!);
    // one job of each kind to its end: how long it takes, and the idle level of a worker that has run jobs
    for (const kind of JOB_KINDS) alone.set(kind, await finishOne(warmLane(kind)));
    idle = await settledWorker();
  });

  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  /** A user's lane of a kind; uploads and transfers each write into a destination user folder of their own. */
  const lane = (kind: JobKind, user: number): Lane => {
    if (kind === 'download') return { kind, user, tokens: { 'presqt-source-token': `d${user}` } };
    if (kind === 'upload')
      return {
        kind,
        user,
        tokens: { 'presqt-destination-token': `u${user}` },
        folder: join(destination, `up${user}`),
      };
    return {
      kind,
      user,
      tokens: { 'presqt-source-token': `t${user}`, 'presqt-destination-token': `t${user}` },
      folder: join(destination, `tr${user}`),
    };
  };

  const warmLane = (kind: JobKind): Lane => ({
    kind,
    user: -1,
    tokens: Object.fromEntries(
      Object.entries(lane(kind, 0).tokens).map(([header]) => [header, 'warm'] as [string, string]),
    ),
  });

  /** Starts a job; odd-numbered uploads and transfers go into the user's container, updating duplicates. */
  const start = (on: Lane, n: number) => {
    const intoShelf = n % 2 === 1;
    const headers = {
      ...on.tokens,
      'presqt-email-opt-in': '',
      'presqt-file-duplicate-action': intoShelf ? 'update' : 'ignore',
    };
    if (on.kind === 'download')
      return http.get(`/api_v1/targets/src/resources/${fsId('Data')}.zip/`).set(headers);
    const path = `/api_v1/targets/dst/resources/${intoShelf ? `${fsId('Shelf')}/` : ''}`;
    if (on.kind === 'upload') return http.post(path).set(headers).attach('presqt-file', bag, 'bag.zip');
    return http
      .post(path)
      .set({ ...headers, 'presqt-keyword-action': 'none' })
      .send({ source_target_name: 'src', source_resource_id: fsId('Data'), keywords: [] });
  };

  const status = (on: Lane) =>
    http
      .get(on.kind === 'download' ? '/api_v1/job_status/download.json/' : `/api_v1/job_status/${on.kind}/`)
      .set(on.tokens);

  /** The job's status once it reads as ended, or at `deadline`; an answer that is no job status is asked again. */
  const untilEnded = async (on: Lane, deadline: number): Promise<request.Response> => {
    for (;;) {
      const answer = await status(on);
      const ended = answer.body.status !== undefined && answer.body.status !== 'in_progress';
      if (ended || Date.now() > deadline) return answer;
    }
  };

  /** Runs one job to its end, uncancelled; how long it took from its 202. */
  const finishOne = async (on: Lane): Promise<number> => {
    await start(on, 0).expect(202);
    const began = Date.now();
    const done = await untilEnded(on, began + 60_000);
    expect(done.body.status).toBe('finished');
    return Date.now() - began;
  };

  /** Starts job `n` of a lane, cancels it at its moment, and reports how it ended. */
  const cancelOne = async (on: Lane, n: number): Promise<Cancel> => {
    const before = on.folder ? snapshot(on.folder) : new Map<string, string>();
    // where a download makes its zip: the job's directory, in a folder of the run's
    const ticketDir = join(
      stack.dataDir,
      'jobs',
      on.kind,
      ticketFor(SECRET_KEY, ...Object.values(on.tokens)),
    );
    const earlierRuns = new Set(existsSync(ticketDir) ? readdirSync(ticketDir) : []);
    await start(on, n).expect(202);
    const moment = await reachMoment(on, n);
    const cancelAt = Date.now();
    const answer = (await http.patch(`/api_v1/job_status/${on.kind}/`).set(on.tokens)).status;
    const ended = await untilEnded(on, cancelAt + 3 * END_WITHIN_MS);
    const endedMs = Date.now() - cancelAt;
    // looked at as soon as the job reads as ended
    const left = on.folder
      ? differences(before, snapshot(on.folder))
      : filesBelow(ticketDir).filter((path) => !earlierRuns.has(path.split('/')[0]));
    if (answer === 200) {
      expect(ended.body).toMatchObject({ status: 'cancelled', status_code: '499' });
      return { kind: on.kind, moment, answer, endedMs, left };
    }
    // too late: the job finished, whole
    expect({ answer, ended: ended.body }).toMatchObject({
      answer: 406,
      ended: { status: 'finished', files_finished: FILES },
    });
    if (on.folder) resetFolder(on.folder, on.kind);
    return { kind: on.kind, moment, answer, endedMs, left: [] };
  };

  /**
   * Waits for job n's moment: for even n, 0 to 1 s after the 202 (but no later than half the time a job of its
   * kind took alone, should that be shorter); for odd n, a file of the first half has just finished.
   */
  const reachMoment = async (on: Lane, n: number): Promise<string> => {
    if (n % 2 === 0) {
      const latest = Math.min(LATEST_MS, alone.get(on.kind)! / 2);
      const delay = Math.round(((n * 0.618) % 1) * latest);
      await new Promise((resolve) => setTimeout(resolve, delay));
      return `${delay} ms`;
    }
    const files = 1 + ((n * 7) % (FILES / 2));
    await pollUntil(
      stack.baseUrl,
      on.kind === 'download' ? '/api_v1/job_status/download.json/' : `/api_v1/job_status/${on.kind}/`,
      on.tokens,
      (body) => Number(body.files_finished) >= files || body.status !== 'in_progress',
      30_000,
    );
    return `after ${files} files`;
  };

  /**
   * The worker's resident memory (MiB) and open files once it has had time to settle after its last job
   * (docs/memory.md).
   */
  const settledWorker = async (): Promise<{ rssMiB: number; openFiles: number }> => {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const pid = stack.worker!.child.pid!;
    const proc = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      rssMiB: Number(/VmRSS:\s+(\d+) kB/.exec(proc)?.[1]) / 1024,
      openFiles: readdirSync(`/proc/${pid}/fd`).length,
    };
  };

  it('ends each cancelled job within 5 s of its cancel, and only once the target is as before', async () => {
    const lanes = JOB_KINDS.flatMap((kind) => Array.from({ length: USERS }, (_, user) => lane(kind, user)));
    const cancels = (
      await Promise.all(
        lanes.map(async (on) => {
          const done: Cancel[] = [];
          for (let n = on.user; n < CANCELS; n += USERS) done.push(await cancelOne(on, n));
          return done;
        }),
      )
    ).flat();
    const late = cancels.filter((cancel) => cancel.endedMs > END_WITHIN_MS);
    const unclean = cancels.filter((cancel) => cancel.left.length > 0);
    expect({ late, unclean }).toEqual({ late: [], unclean: [] });
    for (const kind of JOB_KINDS) {
      const ofKind = cancels.filter((cancel) => cancel.kind === kind);
      expect(ofKind).toHaveLength(CANCELS);
      // most cancels come while their job runs, so the test keeps its power; on an idle machine 5 of the upload's
      // 50 cancels and none of the other kinds' found their job finished (mostly those sent once a poll saw some
      // files done): a 406, checked above as a whole, finished job
      expect(ofKind.filter((cancel) => cancel.answer === 200).length).toBeGreaterThanOrEqual(CANCELS * 0.7);
    }
    const slowest = Math.max(...cancels.map((cancel) => cancel.endedMs));
    const tooLate = cancels.filter((cancel) => cancel.answer !== 200).length;
    console.log(
      `${cancels.length} cancels (${tooLate} too late: the job had finished); the slowest read as ended ${slowest} ms after its cancel; alone a job took ${[...alone].map(([kind, ms]) => `${kind} ${ms} ms`).join(', ')}`,
    );
  }, 300_000);

  it('leaves no run in the queues, no job files of a cancelled run, and the worker near its idle memory and files', async () => {
    // the janitor sweeps a replaced run's files within a second (JOB_SWEEP_MS)
    const after = await settledWorker();
    for (const kind of JOB_KINDS)
      expect(await redis.llen(`${stack.env.REDIS_PREFIX}:bull:${kind}:active`)).toBe(0);
    expect(await redis.keys(`${stack.env.REDIS_PREFIX}:job:*:runner:*`)).toEqual([]);
    for (let user = 0; user < USERS; user++)
      for (const folder of [`up${user}`, `tr${user}`])
        expect(readdirSync(join(destination, folder))).toEqual(['Shelf']);
    // the files a run keeps are a finished one's (the warm-up's), nothing of a cancelled one
    const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
    for (const kind of JOB_KINDS) {
      const kindDir = join(stack.dataDir, 'jobs', kind);
      for (const ticket of existsSync(kindDir) ? readdirSync(kindDir) : []) {
        const record = await store.get(kind, ticket);
        const kept = record?.state === 'finished' ? `${record.runId}/` : null;
        const left = filesBelow(join(kindDir, ticket)).filter(
          (path) => kept === null || !path.startsWith(kept),
        );
        expect({ kind, ticket, left }).toEqual({ kind, ticket, left: [] });
      }
    }
    console.log(
      `worker: idle ${Math.round(idle.rssMiB)} MiB and ${idle.openFiles} open files, after the cancels ${Math.round(after.rssMiB)} MiB and ${after.openFiles}`,
    );
    expect(after.rssMiB).toBeLessThan(idle.rssMiB + 40);
    // a source opened for a file the cancel kept out of the zip was once left open
    expect(after.openFiles).toBeLessThanOrEqual(idle.openFiles + 5);
  }, 30_000);
});

/**
 * A destination user's folder as each job finds it: only a container `Shelf`, holding a file each job of
 * `kind` replaces (duplicates updated) and one no job touches.
 */
function resetFolder(userDir: string, kind: JobKind): void {
  rmSync(userDir, { recursive: true, force: true });
  writeTree(join(userDir, 'Shelf'), {
    [`${kind === 'upload' ? 'Upload' : 'Data'}/0/f-0.bin`]: 'the old content, to be restored',
    'notes.txt': 'not touched',
  });
}

/**
 * Every file (path → sha256) and folder (path ending '/' → '') below `dir`, hidden ones included; a file or
 * folder that goes while it is read is 'going' (still being taken back).
 */
function snapshot(dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  const visit = (current: string) => {
    for (const entry of readEntries(current)) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        entries.set(`${relative(dir, path)}/`, '');
        visit(path);
      } else entries.set(relative(dir, path), digestOf(path));
    }
  };
  visit(dir);
  return entries;
}

function digestOf(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'going';
  }
}

/** A folder's entries; none when it goes while it is read. */
function readEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The paths of the files below `dir`; what goes while they are listed is left out (the worker cleans up). */
function filesBelow(dir: string): string[] {
  const files: string[] = [];
  const visit = (current: string) => {
    for (const entry of readEntries(current)) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) visit(path);
      else files.push(relative(dir, path));
    }
  };
  visit(dir);
  return files;
}

/** What differs between two snapshots: entries added (+), gone (-) or changed (~). */
function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.flatMap((path) => {
    if (!before.has(path)) return [`+${path}`];
    if (!after.has(path)) return [`-${path}`];
    return before.get(path) === after.get(path) ? [] : [`~${path}`];
  });
}
