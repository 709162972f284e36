import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { completeZipEntries, type PartialZipEntry } from '@app/archive';
import { JobStore, ticketFor } from '@app/jobs';
import { makeBagZip } from '../support/bags';
import { fsId, writeTargetsFile, writeTree, partneredEntries } from '../support/fs-fixtures';
import {
  binaryParser,
  downloadTo,
  extractZip,
  pollUntil,
  pollUntilDone,
  verifyBagZip,
  watchUntil,
} from '../support/jobs';
import { startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';

const TOKENS = { 'presqt-source-token': 'alice-token', 'presqt-destination-token': 'alice-token' };
const ALICE = { 'presqt-source-token': 'alice-token' };
const FILES = 24;
const SECRET_KEY = 'resilience-test-secret-key';
const FILE_BYTES = 6 << 20;
const DOWNLOAD_FILES = 12;
/** the cancelled upload's files, one at a time: enough that the cancel lands while they are written */
const UPLOAD_FILES = 24;
const UPLOAD_FILE_BYTES = 4 << 20;

/** Workers die and come back; jobs must survive them (JOB_LOCK_MS is short so takeovers are quick). */
describe('jobs across killed workers', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let source: string;
  let destination: string;
  const workers: RunningProcess[] = [];
  /** a test's own connections to the stack's Redis (openRedis), closed with it, passed or failed */
  const connections: Redis[] = [];
  const openRedis = () => {
    const redis = new Redis(stack.env.REDIS_URL);
    connections.push(redis);
    return redis;
  };

  beforeAll(async () => {
    source = mkdtempSync(join(tmpdir(), 'presqt-res-src-'));
    destination = mkdtempSync(join(tmpdir(), 'presqt-res-dst-'));
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < FILES; i++)
      files[`alice/Data/part-${String(i).padStart(2, '0')}.bin`] = randomBytes(FILE_BYTES);
    // a text file among them is deflated into the zip, and a resumed run inflates it from the earlier zip; the
    // others are stored, and copied from it as they lie
    for (let i = 0; i < DOWNLOAD_FILES; i++)
      files[`alice/Zipped/part-${String(i).padStart(2, '0')}.${i === 1 ? 'txt' : 'bin'}`] =
        randomBytes(FILE_BYTES);
    writeTree(source, files);
    const targetsFile = writeTargetsFile(partneredEntries(source, destination));
    // one file at a time, so the kill lands between clearly finished files
    stack = await startStack({
      env: {
        TARGETS_FILE: targetsFile,
        JOB_LOCK_MS: '1500',
        FILE_TRANSFERS: '1',
        JOB_SWEEP_MS: '300',
        SECRET_KEY,
      },
    });
    http = request(stack.baseUrl);
  });

  // a test's workers stop with it, passed or failed: several tests start with none running, and one left
  // running by a failed test took their jobs (the failed test was followed by three more failing). Its Redis
  // connections close too: one left open by a failed test kept jest from exiting.
  afterEach(async () => {
    for (const redis of connections.splice(0)) redis.disconnect();
    const running = [stack?.worker, ...workers.splice(0)].filter((worker) => worker !== undefined);
    for (const worker of running) worker.child.kill('SIGTERM');
    await Promise.all(running.map((worker) => worker.exited));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** Starts a transfer of the source's `Data` into a new project at the destination. */
  const startDataTransfer = (duplicate: string) =>
    http
      .post('/api_v1/targets/dst/resources/')
      .set({
        ...TOKENS,
        'presqt-file-duplicate-action': duplicate,
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
      })
      .send({ source_target_name: 'src', source_resource_id: fsId('Data'), keywords: [] })
      .expect(202);

  /** Waits (up to `timeoutMs`) for a path to go; whether it went. */
  const gone = async (path: string, timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (existsSync(path) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return !existsSync(path);
  };

  /** Fails the test if the job finished before its worker was killed: the resume would then go untested. */
  const expectUnfinished = async (statusPath: string, headers: Record<string, string>) =>
    (await http.get(statusPath).set(headers).expect(202)).body as Record<string, unknown>;

  /** The names of the `part-` files in a project at the destination, sorted (the order they are written in). */
  const partsWritten = (project: string) =>
    existsSync(project)
      ? readdirSync(project)
          .filter((name) => name.startsWith('part-'))
          .sort()
      : [];

  const restartWorker = async (): Promise<RunningProcess> => {
    const worker = startApp('worker', stack.env);
    workers.push(worker);
    await waitForOutput(worker, /Worker ready/);
    return worker;
  };

  /** Starts a download of the source's `Zipped` on a new worker; the worker. */
  const startZippedDownload = async (): Promise<RunningProcess> => {
    const worker = await restartWorker();
    await http
      .get(`/api_v1/targets/src/resources/${fsId('Zipped')}.zip/`)
      .set({ ...ALICE, 'presqt-email-opt-in': '' })
      .expect(202);
    return worker;
  };

  /**
   * Kills `worker` once the download's partial zip holds `count` complete entries of `Zipped`'s files. Files go
   * one at a time, the next one's entry started once the one before is checkpointed. Answers the partial
   * zip's path and its complete entries by file name, in the zip's order.
   */
  const killOnceZipped = async (worker: RunningProcess, count: number) => {
    const runs = join(stack.env.DATA_DIR, 'jobs', 'download');
    const partialZip = () =>
      existsSync(runs)
        ? readdirSync(runs, { recursive: true, encoding: 'utf8' }).find((f) => f.includes('.partial-'))
        : undefined;
    const zipped = new Map<string, PartialZipEntry>();
    await watchUntil(async () => {
      const partial = partialZip();
      if (partial !== undefined)
        for await (const entry of completeZipEntries(join(runs, partial)))
          if (entry.name.includes('/data/Zipped/part-')) zipped.set(entry.name.replace(/.*\//, ''), entry);
      return zipped.size >= count;
    }, `zipping ${count} files`);
    worker.child.kill('SIGKILL');
    await worker.exited;
    await expectUnfinished('/api_v1/job_status/download.json', ALICE);
    return { partialZip: join(runs, partialZip()!), zipped };
  };

  it('resumes a transfer on another worker without writing the finished files again', async () => {
    await startDataTransfer('update');
    const project = join(destination, 'alice', 'Data');
    await watchUntil(() => partsWritten(project).length >= 4, 'writing 4 files');
    stack.worker!.child.kill('SIGKILL');
    await stack.worker!.exited;
    const progress = await expectUnfinished('/api_v1/job_status/transfer/', TOKENS);
    const written = new Map(partsWritten(project).map((name) => [name, statSync(join(project, name)).ino]));
    expect(written.size).toBeGreaterThanOrEqual(Number(progress.files_finished));

    await restartWorker();
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS, 60_000);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      files_finished: FILES,
      failed_fixity: [],
      destination_resource_id: fsId('Data'),
    });
    // one project, not a second "Data (2)"; files finished before the kill kept their inode (not rewritten)
    expect(readdirSync(join(destination, 'alice'))).toEqual(['Data']);
    const finishedBefore = [...written.keys()].slice(0, Number(progress.files_finished));
    for (const name of finishedBefore) expect(statSync(join(project, name)).ino).toBe(written.get(name));
    expect(readdirSync(project).filter((name) => name.startsWith('part-'))).toHaveLength(FILES);
  });

  it('takes back what a killed run wrote when its job is cancelled before another worker takes it over', async () => {
    const running = await restartWorker();
    // the first test's transfer made `Data`
    const project = join(destination, 'alice', 'Data (2)');
    await startDataTransfer('ignore');
    await watchUntil(() => partsWritten(project).length >= 2, 'writing 2 files');
    running.child.kill('SIGKILL');
    await running.exited;
    expect(readdirSync(project).length).toBeGreaterThanOrEqual(2);
    await http.patch('/api_v1/job_status/transfer/').set(TOKENS).expect(200);
    await restartWorker();
    expect(await gone(project, 15_000)).toBe(true);
  });

  it('resumes a download on another worker, copying the files already zipped instead of fetching them', async () => {
    const { zipped } = await killOnceZipped(await startZippedDownload(), 4);
    // Change the files zipped and checkpointed before the kill (all but the last complete entry). Had the
    // resumed run fetched them again, the zip would hold the new bytes; it must hold what the first run
    // fetched and verified.
    const project = join(source, 'alice', 'Zipped');
    const original = new Map<string, Buffer>();
    for (const name of [...zipped.keys()].slice(0, zipped.size - 1)) {
      original.set(name, readFileSync(join(project, name)));
      writeFileSync(join(project, name), randomBytes(FILE_BYTES));
    }

    await restartWorker();
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json', ALICE, 60_000);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ files_finished: DOWNLOAD_FILES, failed_fixity: [] });
    const zip = await http
      .get('/api_v1/job_status/download.zip')
      .set(ALICE)
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    const bagName = `src_download_${fsId('Zipped')}`;
    const zipFile = await downloadTo(zip, `${bagName}.zip`);
    verifyBagZip(zipFile, bagName);
    const payload = join(extractZip(zipFile), bagName, 'data', 'Zipped');
    expect(readdirSync(payload)).toHaveLength(DOWNLOAD_FILES);
    for (const [name, bytes] of original) expect(readFileSync(join(payload, name)).equals(bytes)).toBe(true);
    const last = `part-${DOWNLOAD_FILES - 1}.bin`;
    expect(readFileSync(join(payload, last)).equals(readFileSync(join(project, last)))).toBe(true);
    // the finished job keeps only its zip
    const runs = join(stack.env.DATA_DIR, 'jobs', 'download');
    const leftovers = readdirSync(runs, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.includes('.partial'),
    );
    expect(leftovers).toEqual([]);
  });

  it('fails a resumed download whose earlier copy of a file was damaged on disk after the kill', async () => {
    const { partialZip, zipped } = await killOnceZipped(await startZippedDownload(), 2);
    // one byte of the first file's entry in the killed run's partial zip, which the resumed run copies
    const first = zipped.get('part-00.bin')!;
    const file = openSync(partialZip, 'r+');
    const byte = Buffer.alloc(1);
    readSync(file, byte, 0, 1, first.dataStart + 1000);
    writeSync(file, Buffer.from([byte[0] ^ 0xff]), 0, 1, first.dataStart + 1000);
    closeSync(file);

    await restartWorker();
    const failed = await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/download.json',
      ALICE,
      (b) => b.status !== 'in_progress',
      60_000,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      message:
        "The job failed: The interrupted run's copy of /Zipped/part-00.bin is damaged; please download again",
    });
  });

  it('fails a job whose worker keeps dying, with a message, and frees the slot', async () => {
    let worker = await restartWorker();
    const headers = { 'presqt-source-token': 'alice-token', 'presqt-email-opt-in': '' };
    await http
      .get(`/api_v1/targets/src/resources/${fsId('Data')}.zip/`)
      .set(headers)
      .expect(202);
    // each worker dies as soon as it has taken the job over; the third takeover is one too many
    for (let death = 0; death < 3; death++) {
      await waitForOutput(worker, /running download job/);
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = await restartWorker();
    }
    const failed = await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/download.json',
      TOKENS,
      (b) => b.status !== 'in_progress',
      30_000,
    );
    expect(failed).toMatchObject({ status: 'failed', status_code: 500 });
    expect(String(failed.message)).toContain('worker went away');
    await http
      .get(`/api_v1/targets/src/resources/${fsId('Data/part-00.bin')}.zip/`)
      .set(headers)
      .expect(202);
    await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', TOKENS);
  });

  it('fails a run that no queue holds (its API died before queueing it), freeing the slot', async () => {
    await restartWorker();
    // what an API process leaves when it dies between claiming the slot and queueing the job
    const redis = openRedis();
    const ticket = ticketFor(SECRET_KEY, 'ghost-token');
    const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
    const record = await store.start('download', ticket);
    expect(record).not.toBeNull();
    const ghost = { 'presqt-source-token': 'ghost-token' };
    const failed = await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/download.json',
      ghost,
      (b) => b.status !== 'in_progress',
    );
    expect(failed).toMatchObject({ status: 'failed', status_code: 500 });
    expect(String(failed.message)).toContain('lost before it could finish');
  });

  it('removes an upload that a dead API process left half received, once it is older than a job lives', async () => {
    await restartWorker();
    const abandoned = join(stack.dataDir, 'uploads', 'abandoned');
    const recent = join(stack.dataDir, 'uploads', 'recent');
    writeTree(stack.dataDir, {
      'uploads/abandoned/package.zip': 'half',
      'uploads/recent/package.zip': 'receiving',
    });
    const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000);
    utimesSync(abandoned, twoDaysAgo, twoDaysAgo);
    expect(await gone(abandoned, 10_000)).toBe(true);
    expect(existsSync(recent)).toBe(true);
  });

  it('cancels an upload while it runs, leaving the target as it found it', async () => {
    await restartWorker();
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < UPLOAD_FILES; i++) files[`Upload/part-${i}.bin`] = randomBytes(UPLOAD_FILE_BYTES);
    const zip = await makeBagZip({ files });
    const token = { 'presqt-destination-token': 'alice-token' };
    await http
      .post('/api_v1/targets/dst/resources/')
      .set({ ...token, 'presqt-file-duplicate-action': 'ignore', 'presqt-email-opt-in': '' })
      .attach('presqt-file', zip, 'upload.zip')
      .expect(202);
    const project = join(destination, 'alice', 'Upload');
    await watchUntil(() => partsWritten(project).length >= 2, 'writing 2 files');
    // a 200 says the cancel was taken while the run wrote files: one that came once the run was committing
    // (or over) answers 406
    const cancel = await http.patch('/api_v1/job_status/upload/').set(token);
    expect({ status: cancel.status, body: cancel.body }).toEqual({
      status: 200,
      body: { status_code: '499', message: 'Upload was cancelled by the user' },
    });
    const status = await http.get('/api_v1/job_status/upload/').set(token).expect(500);
    expect(status.body).toMatchObject({ status: 'cancelled', status_code: '499' });
    // the project made for the upload goes with what was written into it, so a new upload takes its name
    expect(await gone(project, 10_000)).toBe(true);
    await http.patch('/api_v1/job_status/upload/').set(token).expect(406);
  });

  it('adopts the project a killed run made but had not recorded, instead of making a second one', async () => {
    // no worker runs: the job waits while the state a run killed just after making its project is set up
    await startDataTransfer('ignore');
    const redis = openRedis();
    const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
    const ticket = ticketFor(SECRET_KEY, 'alice-token', 'alice-token');
    const record = (await store.get('transfer', ticket))!;
    expect(await store.checkpoint(record, new Map([['#container', {}]]))).toBe(true);
    const userDir = join(destination, 'alice');
    const before = existsSync(userDir) ? readdirSync(userDir) : [];
    const name = before.includes('Data') ? `Data (${before.length + 1})` : 'Data';
    const claim = createHash('sha256').update(`transfer:${ticket}:${record.runId}`).digest('hex');
    writeTree(userDir, { [`${name}/.presqt-claim`]: claim });

    await restartWorker();
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS, 60_000);
    expect(done.status).toBe(200);
    expect(done.body.destination_resource_id).toBe(fsId(name));
    // the one new project is the killed run's, now whole, and no longer marked as the job's
    expect(readdirSync(userDir).filter((entry) => !before.includes(entry))).toEqual([name]);
    expect(readdirSync(join(userDir, name)).filter((entry) => entry.startsWith('part-'))).toHaveLength(FILES);
    expect(existsSync(join(userDir, name, '.presqt-claim'))).toBe(false);
  });

  it('lets one worker at a time carry out a run, even when the job is handed to a second worker', async () => {
    // no worker runs: the run's lease is taken first as a worker still carrying the run out would hold it
    await startDataTransfer('ignore');
    const redis = openRedis();
    const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
    const ticket = ticketFor(SECRET_KEY, 'alice-token', 'alice-token');
    const record = (await store.get('transfer', ticket))!;
    expect(await store.holdRun(record, 'the first worker', 60_000)).toBe(true);
    const userDir = join(destination, 'alice');
    const before = existsSync(userDir) ? readdirSync(userDir) : [];

    await restartWorker();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(readdirSync(userDir).filter((entry) => !before.includes(entry))).toEqual([]);
    const waiting = await http.get('/api_v1/job_status/transfer/').set(TOKENS).expect(202);
    expect(waiting.body.files_finished).toBe(0);

    // the first worker is done with it (here: gives it up): the second carries the run out
    await store.releaseRun(record, 'the first worker');
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS, 60_000);
    expect(done.status).toBe(200);
    expect(readdirSync(userDir).filter((entry) => !before.includes(entry))).toHaveLength(1);
  });
  it('takes back the project of a run cancelled while its dead worker still held it, though the run never recorded it', async () => {
    // no worker runs: a run died just after making its project, before any checkpoint, its lease not lapsed yet
    await startDataTransfer('ignore');
    const redis = openRedis();
    const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
    const ticket = ticketFor(SECRET_KEY, 'alice-token', 'alice-token');
    const record = (await store.get('transfer', ticket))!;
    expect(await store.holdRun(record, 'a dead worker', 4000)).toBe(true);
    const userDir = join(destination, 'alice');
    const name = `Data (${readdirSync(userDir).length + 1})`;
    const claim = createHash('sha256').update(`transfer:${ticket}:${record.runId}`).digest('hex');
    writeTree(userDir, {
      [`${name}/.presqt-claim`]: claim,
      [`${name}/part-00.bin`]: 'written by the dead run',
    });
    await http.patch('/api_v1/job_status/transfer/').set(TOKENS).expect(200);

    await restartWorker();
    expect(await gone(join(userDir, name), 15_000)).toBe(true);
  });
});
