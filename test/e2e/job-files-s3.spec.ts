import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { ZenodoFake } from '../fakes/zenodo/zenodo-fake';
import { makeBagZip } from '../support/bags';
import { ALL_ACTIONS, writeTree } from '../support/fs-fixtures';
import {
  binaryParser,
  downloadTo,
  extractZip,
  pollUntil,
  pollUntilDone,
  verifyBagZip,
} from '../support/jobs';
import { freePort } from '../support/ports';
import { waitForPort } from '../support/redis-server';
import { startS3Server, type S3Server } from '../support/s3-server';
import { startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';

const TOKEN = 'alice-zenodo-token';
const SOURCE = { 'presqt-source-token': TOKEN };
const START = { ...SOURCE, 'presqt-email-opt-in': '' };
const FILE_READS = /\/files\/[^/]+\/content$/;
/** files of the project whose download is interrupted: each sent slowly, so the kill lands midway */
const SLOW_FILES = 8;
/** processes with the S3 store load the AWS SDK, which takes many seconds on a machine busy with other tests */
const START_TIMEOUT_MS = 60_000;
// a test that starts processes waits for them as long, besides its own work
jest.setTimeout(3 * START_TIMEOUT_MS);

/**
 * Job files in S3-compatible object storage (a real s3rver process): the API and the worker each have a data
 * directory, targets file and temporary folder of their own, as on two hosts, and share only Redis, the
 * secret key and the bucket. The downloaded resource comes from a fake Zenodo, so no target's data is on a
 * disk they share either.
 */
describe('job files in object storage, API and worker on hosts of their own', () => {
  let s3: S3Server;
  let zenodo: ZenodoFake;
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let workerHome: Record<string, string>;
  let prefix: string;
  const extraProcesses: RunningProcess[] = [];
  const big = randomBytes(10 << 20);
  let projectId: string;
  let slowProjectId: string;
  let targets: unknown[];

  /** A data directory, targets file and temporary folder that only one process uses. */
  function ownHome(targets: unknown[]): Record<string, string> {
    const home = mkdtempSync(join(tmpdir(), 'presqt-host-'));
    const targetsFile = join(home, 'targets.json');
    writeFileSync(targetsFile, JSON.stringify(targets));
    const tmp = mkdtempSync(join(home, 'tmp-'));
    return { DATA_DIR: join(home, 'data'), TARGETS_FILE: targetsFile, TMPDIR: tmp };
  }

  /** Every file below `dir` (if there is one) whose name ends with `ending`. */
  function filesUnder(dir: string, ending: string): string[] {
    if (!existsSync(dir)) return [];
    const found = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    return found.filter((name) => name.endsWith(ending));
  }

  async function downloadOf(id: string): Promise<request.Response> {
    await http.get(`/api_v1/targets/zenodo/resources/${id}.zip/`).set(START).expect(202);
    return pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', SOURCE, 120_000);
  }

  const zipOf = (base: string) =>
    request(base).get('/api_v1/job_status/download.zip/').set(SOURCE).buffer(true).parse(binaryParser);

  beforeAll(async () => {
    s3 = await startS3Server();
    zenodo = await new ZenodoFake().start();
    zenodo.rateLimit.limit = 100_000;
    const owner = zenodo.addUser(TOKEN);
    projectId = String(
      zenodo.seed(owner, { title: 'Reef Survey', files: { 'notes.txt': 'reef notes\n', 'big.bin': big } }).id,
    );
    const slowFiles = Object.fromEntries(
      Array.from({ length: SLOW_FILES }, (_, i) => [`part-${i}.bin`, randomBytes(256 << 10)]),
    );
    slowProjectId = String(zenodo.seed(owner, { title: 'Slow Survey', files: slowFiles }).id);
    targets = [
      {
        name: 'zenodo',
        readable_name: 'Zenodo',
        status_url: `${zenodo.server.url}/records/`,
        token_url: 'https://zenodo.org/account/settings/applications/',
        supported_actions: ALL_ACTIONS,
        supported_transfer_partners: { transfer_in: [], transfer_out: [] },
        supported_hash_algorithms: ['md5'],
        infinite_depth: false,
        search_parameters: ['general', 'title', 'id', 'keywords'],
        connector: 'zenodo',
        options: { api_url: zenodo.server.url },
      },
    ];
    workerHome = ownHome(targets);
    stack = await startStack({
      env: {
        ...ownHome(targets),
        ...s3.env,
        SECRET_KEY: 'shared-by-every-process-of-this-deployment',
        JOB_LOCK_MS: '1500',
        JOB_SWEEP_MS: '300',
        FILE_TRANSFERS: '1',
      },
      workerEnv: workerHome,
      startTimeoutMs: START_TIMEOUT_MS,
    });
    http = request(stack.baseUrl);
    prefix = `${stack.env.REDIS_PREFIX}/jobs`;
  });

  afterAll(async () => {
    for (const proc of extraProcesses) proc.child.kill('SIGKILL');
    await stack?.stop();
    await zenodo?.stop();
    await s3?.stop();
  });

  it('serves a zip that a worker on another host made, from the bucket', async () => {
    const done = await downloadOf(projectId);
    expect(done.status).toBe(200);
    const zipName = `zenodo_download_${projectId}.zip`;
    expect(done.body.zip_name).toBe(zipName);

    const zip = await zipOf(stack.baseUrl).expect(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-disposition']).toBe(`attachment; filename="${zipName}"`);
    const file = await downloadTo(zip, zipName);
    verifyBagZip(file, `zenodo_download_${projectId}`);
    const bigCopy = readFileSync(
      join(extractZip(file), `zenodo_download_${projectId}`, 'data', 'Reef Survey', 'big.bin'),
    );
    expect(createHash('sha256').update(bigCopy).digest('hex')).toBe(
      createHash('sha256').update(big).digest('hex'),
    );

    // the zip (larger than one part: a multipart upload) is in the bucket, and on neither host's disk
    const keys = await s3.keys(`${prefix}/download/`);
    expect(keys).toEqual([expect.stringMatching(new RegExp(`^${prefix}/download/[^/]+/[^/]+/${zipName}$`))]);
    expect(filesUnder(stack.env.DATA_DIR, '.zip')).toEqual([]);
    expect(filesUnder(workerHome.DATA_DIR, '.zip')).toEqual([]);
  });

  it('answers with a redirect to a short-lived presigned URL when JOB_FILES_REDIRECT is on', async () => {
    const streamed = (await zipOf(stack.baseUrl).expect(200)).body as Buffer;
    const port = await freePort();
    const api = startApp('api', { ...stack.env, PORT: String(port), JOB_FILES_REDIRECT: 'true' });
    extraProcesses.push(api);
    await waitForPort(port, START_TIMEOUT_MS);

    const answer = await request(`http://127.0.0.1:${port}`)
      .get('/api_v1/job_status/download.zip/')
      .set(SOURCE)
      .redirects(0)
      .expect(302);
    expect(answer.headers['cache-control']).toBe('no-store');
    const location = String(answer.headers.location);
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/${prefix}/download/`)).toBe(true);
    const query = new URL(location).searchParams;
    expect(query.get('X-Amz-Expires')).toBe('300');
    expect(query.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);

    const fromStore = await fetch(location);
    expect(fromStore.status).toBe(200);
    expect(fromStore.headers.get('content-disposition')).toBe(
      `attachment; filename="zenodo_download_${projectId}.zip"`,
    );
    expect(Buffer.from(await fromStore.arrayBuffer()).equals(streamed)).toBe(true);
  });

  it('hands an upload package received by the API to the worker through the bucket', async () => {
    const destination = { 'presqt-destination-token': TOKEN };
    const bag = await makeBagZip({ files: { 'Uploaded/notes.txt': 'notes', 'Uploaded/more.txt': 'more' } });
    await http
      .post('/api_v1/targets/zenodo/resources/')
      .set({ ...destination, 'presqt-file-duplicate-action': 'ignore', 'presqt-email-opt-in': '' })
      .attach('presqt-file', bag, 'bag.zip')
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', destination, 60_000);
    expect(done.status).toBe(200);
    expect(done.body.failed_fixity).toEqual([]);
    const stored = zenodo.state.depositions.get(Number(done.body.destination_resource_id));
    expect(stored?.files.map((file) => file.key).sort()).toEqual(
      ['PRESQT_FTS_METADATA.json', 'more.txt', 'notes.txt'].sort(),
    );
    const keys = (await s3.keys(`${prefix}/upload/`)).map((key) => key.split('/').pop());
    expect(keys.sort()).toEqual(['bag.json', 'package.zip', 'payload.jsonl']);
    // nothing of it stays on either host: the API's copy went to the bucket, the worker's was scratch
    expect(filesUnder(stack.env.DATA_DIR, '.zip')).toEqual([]);
    expect(filesUnder(workerHome.DATA_DIR, '.zip')).toEqual([]);
  });

  it('resumes a download on a worker of a third host after its worker was killed', async () => {
    const before = await s3.keys(`${prefix}/download/`);
    zenodo.server.inject({ kind: 'slow', delayMs: 100, times: SLOW_FILES, match: { path: FILE_READS } });
    await http.get(`/api_v1/targets/zenodo/resources/${slowProjectId}.zip/`).set(START).expect(202);
    await pollUntil(stack.baseUrl, '/api_v1/job_status/download.json/', SOURCE, (body) => {
      return Number(body.files_finished) >= 2;
    });
    stack.worker!.child.kill('SIGKILL');
    await stack.worker!.exited;
    // unfinished at the kill, or there is nothing to resume (with the body, which says how it ended)
    const killed = await http.get('/api_v1/job_status/download.json/').set(SOURCE);
    expect(`${killed.status} ${JSON.stringify(killed.body)}`).toMatch(/^202 /);
    // the replaced download's zip went when this run started
    expect(await s3.keys(`${prefix}/download/`)).not.toEqual(expect.arrayContaining(before));

    const worker = startApp('worker', { ...stack.env, ...ownHome(targets) });
    extraProcesses.push(worker);
    await waitForOutput(worker, /Worker ready/, START_TIMEOUT_MS);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', SOURCE, 60_000);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ files_finished: SLOW_FILES, failed_fixity: [] });
    const zip = await zipOf(stack.baseUrl).expect(200);
    verifyBagZip(await downloadTo(zip, 'slow.zip'), `zenodo_download_${slowProjectId}`);
    expect(await s3.keys(`${prefix}/download/`)).toEqual([
      expect.stringMatching(new RegExp(`/zenodo_download_${slowProjectId}\\.zip$`)),
    ]);
  });

  it('the API removes an upload it died while receiving from its own disk, which no worker sees', async () => {
    const uploads = join(stack.env.DATA_DIR, 'uploads');
    writeTree(uploads, { 'abandoned/package.zip': 'half', 'recent/package.zip': 'receiving' });
    const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000);
    utimesSync(join(uploads, 'abandoned'), twoDaysAgo, twoDaysAgo);
    const deadline = Date.now() + 10_000;
    while (existsSync(join(uploads, 'abandoned')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readdirSync(uploads)).toEqual(['recent']);
  });

  it("deletes a download's zip from the bucket when its record expires", async () => {
    expect(await s3.keys(`${prefix}/download/`)).toHaveLength(1);
    const ticket = (await s3.keys(`${prefix}/download/`))[0].split('/')[3];
    const redis = new Redis(stack.env.REDIS_URL);
    try {
      // what JOB_TTL_HOURS does after a day, at once
      expect(await redis.pexpire(`${stack.env.REDIS_PREFIX}:job:download:${ticket}`, 1)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const deadline = Date.now() + 15_000;
    while ((await s3.keys(`${prefix}/download/`)).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await s3.keys(`${prefix}/download/`)).toEqual([]);
    await zipOf(stack.baseUrl).expect(404);
  });
});
