import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { JobStore, ticketFor, type JobKind } from '@app/jobs';
import { makeBagZip } from '../support/bags';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';

const SECRET_KEY = 'status-bodies-test-secret';
/**
 * One user for each way a job is seen to end, so that each has a job of every kind of its own; `upgraded`'s
 * jobs are queued in the layout the store kept before, as a deployment upgraded with jobs queued left them.
 */
const USERS = ['queued', 'cancelling', 'finishing', 'failing', 'upgraded'] as const;
type User = (typeof USERS)[number];
const tokenOf = (user: User) => `${user}-token`;

const NOTES = 'notes of the study\n';
const DATA = 'a,b\n1,2\n';
const STUDY_BYTES = NOTES.length + DATA.length;

/** The headers each kind finds its job by. */
function tokens(kind: JobKind, user: User): Record<string, string> {
  const token = tokenOf(user);
  if (kind === 'download') return { 'presqt-source-token': token };
  if (kind === 'upload') return { 'presqt-destination-token': token };
  return { 'presqt-source-token': token, 'presqt-destination-token': token };
}

const STATUS_PATHS: Record<JobKind, string> = {
  download: '/api_v1/job_status/download.json/',
  upload: '/api_v1/job_status/upload/',
  transfer: '/api_v1/job_status/transfer/',
};
const TITLES: Record<JobKind, string> = { download: 'Download', upload: 'Upload', transfer: 'Transfer' };

/**
 * Every job-status body the API answers, byte for byte: for each kind, while queued, while being cancelled,
 * cancelled, finished and failed, and the cancel's own answers. The old PresQT web client reads these bodies
 * (status codes as strings but a failure's as a number, `job_percentage`), so any change to how a job is
 * stored must leave them exactly as they are. Each body is compared as the text the API sent.
 */
describe('job status bodies (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let source: string;
  let destination: string;
  let worker: RunningProcess | undefined;

  beforeAll(async () => {
    source = mkdtempSync(join(tmpdir(), 'presqt-bodies-src-'));
    destination = mkdtempSync(join(tmpdir(), 'presqt-bodies-dst-'));
    const users = Object.fromEntries(USERS.map((user) => [tokenOf(user), user]));
    for (const user of USERS) {
      writeTree(source, { [`${user}/Study/notes.txt`]: NOTES, [`${user}/Study/data/table.csv`]: DATA });
      writeTree(destination, { [`${user}/Box/kept.txt`]: 'kept' });
    }
    const partners = { transfer_in: ['src', 'dst'], transfer_out: ['src', 'dst'] };
    const entry = (name: string, root: string) =>
      filesystemEntry(name, root, {
        supported_transfer_partners: partners,
        options: { root, tokens: users },
      });
    const targetsFile = writeTargetsFile([entry('src', source), entry('dst', destination)]);
    // no worker at first: every job waits in its queue until the worker is started
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, SECRET_KEY }, worker: false });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await stack?.stop();
  });

  /** Starts `user`'s job of `kind`: from (or to) their `Study`, an upload into their `Box`. */
  async function start(kind: JobKind, user: User): Promise<void> {
    const headers = { ...tokens(kind, user), 'presqt-email-opt-in': '' };
    if (kind === 'download') {
      await http
        .get(`/api_v1/targets/src/resources/${fsId('Study')}.zip/`)
        .set(headers)
        .expect(202);
    } else if (kind === 'upload') {
      const zip = await makeBagZip({ files: { 'new.txt': 'new' } });
      await http
        .post(`/api_v1/targets/dst/resources/${fsId('Box')}/`)
        .set({ ...headers, 'presqt-file-duplicate-action': 'ignore' })
        .attach('presqt-file', zip, 'package.zip')
        .expect(202);
    } else {
      await http
        .post('/api_v1/targets/dst/resources/')
        .set({ ...headers, 'presqt-file-duplicate-action': 'ignore', 'presqt-keyword-action': 'none' })
        .send({ source_target_name: 'src', source_resource_id: fsId('Study'), keywords: [] })
        .expect(202);
    }
  }

  const get = (kind: JobKind, user: User) => http.get(STATUS_PATHS[kind]).set(tokens(kind, user));
  const patch = (kind: JobKind, user: User) =>
    http.patch(`/api_v1/job_status/${kind}/`).set(tokens(kind, user));

  /** The answer's status and its body as sent, beside what they must be. */
  const answered = (res: request.Response) => ({ status: res.status, text: res.text });
  const expected = (status: number, body: unknown) => ({ status, text: JSON.stringify(body) });

  const inProgress = (message: string) => ({
    status: 'in_progress',
    status_code: null,
    message,
    job_percentage: 0,
    files_total: 0,
    files_finished: 0,
    bytes_total: 0,
    bytes_finished: 0,
  });
  const cancelled = (kind: JobKind) => ({
    status: 'cancelled',
    status_code: '499',
    message: `${TITLES[kind]} was cancelled by the user`,
    job_percentage: 0,
  });

  /** A finished job's body, as the status answers it; a cancel's 406 leaves out the resource's link. */
  function finished(kind: JobKind, user: User, link: boolean): Record<string, unknown> {
    const ticket = ticketFor(SECRET_KEY, ...Object.values(tokens(kind, user)));
    const progress = (files: number, bytes: number) => ({
      status: 'finished',
      status_code: '200',
      message: `${TITLES[kind]} successful.`,
      job_percentage: 100,
      files_total: files,
      files_finished: files,
      bytes_total: bytes,
      bytes_finished: bytes,
    });
    const resourceLink = (id: string) =>
      link ? { link_to_resource: `${stack.baseUrl}/api_v1/targets/dst/resources/${id}/` } : {};
    if (kind === 'download') {
      return {
        ...progress(2, STUDY_BYTES),
        zip_name: `src_download_${fsId('Study')}.zip`,
        failed_fixity: [],
        fixity_unverified: [],
        ticket_number: ticket,
      };
    }
    const written = {
      failed_fixity: [],
      fixity_unverified: [],
      resources_ignored: [],
      resources_updated: [],
      destination_target_name: 'dst',
    };
    if (kind === 'upload') {
      return {
        ...progress(1, 3),
        ...written,
        destination_resource_id: fsId('Box'),
        ...resourceLink(fsId('Box')),
      };
    }
    return {
      ...progress(2, STUDY_BYTES),
      ...written,
      destination_resource_id: fsId('Study'),
      source_resource_id: fsId('Study'),
      initial_keywords: [],
      enhanced_keywords: [],
      fairshare_evaluation_results: [],
      ...resourceLink(fsId('Study')),
    };
  }

  const FAILURES: Record<JobKind, Record<string, unknown>> = {
    download: { status_code: 404, message: `Resource with id '${fsId('Study')}' not found for this user.` },
    upload: { status_code: 404, message: `Resource with id '${fsId('Box')}' not found for this user.` },
    transfer: { status_code: 404, message: `Resource with id '${fsId('Study')}' not found for this user.` },
  };

  // the kinds side by side (their jobs are apart: a kind's own tickets), each waiting out the cancel's 5 s
  it.concurrent.each(['download', 'upload', 'transfer'] as const)(
    'answers a queued %s, its cancel and its being cancelled as the PresQT API does',
    async (kind) => {
      for (const user of USERS) await start(kind, user);
      const title = TITLES[kind];

      // queued: in progress, and cancelled at once
      expect(answered(await get(kind, 'queued'))).toEqual(
        expected(202, inProgress(`${title} is being processed on the server.`)),
      );
      if (kind === 'download') {
        const zip = await http.get('/api_v1/job_status/download.zip/').set(tokens(kind, 'queued'));
        expect(answered(zip)).toEqual(
          expected(202, inProgress(`${title} is being processed on the server.`)),
        );
      }
      expect(answered(await patch(kind, 'queued'))).toEqual(
        expected(200, { status_code: '499', message: `${title} was cancelled by the user` }),
      );
      expect(answered(await get(kind, 'queued'))).toEqual(expected(500, cancelled(kind)));
      expect(answered(await patch(kind, 'queued'))).toEqual(expected(406, cancelled(kind)));

      // being cancelled: a worker (gone, its lease not lapsed) holds the run, so the cancel waits for it
      const redis = new Redis(stack.env.REDIS_URL);
      const store = new JobStore(redis, stack.env.REDIS_PREFIX, 3600);
      const ticket = ticketFor(SECRET_KEY, ...Object.values(tokens(kind, 'cancelling')));
      const run = (await store.get(kind, ticket))!;
      expect(await store.holdRun(run, 'a worker gone', 60_000)).toBe(true);
      expect(answered(await patch(kind, 'cancelling'))).toEqual(
        expected(200, { status_code: '499', message: `${title} is being cancelled.` }),
      );
      expect(answered(await get(kind, 'cancelling'))).toEqual(
        expected(202, inProgress(`${title} is being cancelled.`)),
      );
      await store.releaseRun(run, 'a worker gone');

      const upgraded = ticketFor(SECRET_KEY, ...Object.values(tokens(kind, 'upgraded')));
      await storeAsBefore(redis, `${stack.env.REDIS_PREFIX}:job:${kind}:${upgraded}`);
      await redis.quit();
    },
    30_000,
  );

  it('answers every end of every kind as the PresQT API does, once a worker carries the jobs out', async () => {
    // what the failing user's jobs read goes after their 202 and before a worker takes them
    rmSync(join(source, 'failing', 'Study'), { recursive: true });
    rmSync(join(destination, 'failing', 'Box'), { recursive: true });
    worker = startApp('worker', stack.env);
    await waitForOutput(worker, /Worker ready/);
    for (const kind of ['download', 'upload', 'transfer'] as const) {
      const done = await pollUntilDone(stack.baseUrl, STATUS_PATHS[kind], tokens(kind, 'finishing'));
      expect(answered(done)).toEqual(expected(200, finished(kind, 'finishing', true)));
      expect(answered(await patch(kind, 'finishing'))).toEqual(
        expected(406, finished(kind, 'finishing', false)),
      );
      const upgraded = await pollUntilDone(stack.baseUrl, STATUS_PATHS[kind], tokens(kind, 'upgraded'));
      expect(answered(upgraded)).toEqual(expected(200, finished(kind, 'upgraded', true)));

      const failed = await pollUntilDone(stack.baseUrl, STATUS_PATHS[kind], tokens(kind, 'failing'));
      expect(answered(failed)).toEqual(
        expected(500, { status: 'failed', ...FAILURES[kind], job_percentage: 0 }),
      );

      const ended = await pollUntilDone(stack.baseUrl, STATUS_PATHS[kind], tokens(kind, 'cancelling'));
      expect(answered(ended)).toEqual(expected(500, cancelled(kind)));
    }
  });
});

/**
 * Rewrites a queued job's record as the store kept it before it kept what the job is: the PresQT answer's
 * fields, status codes as JSON, every field written (test/unit/job-store-layout.spec.ts reads each state).
 */
async function storeAsBefore(redis: Redis, key: string): Promise<void> {
  const now = await redis.hgetall(key);
  await redis.del(key);
  await redis.hset(key, {
    kind: now.kind,
    ticket: now.ticket,
    run_id: now.runId,
    status: 'in_progress',
    status_code: 'null',
    message: now.message,
    job_percentage: '0',
    files_total: '0',
    files_finished: '0',
    bytes_total: '0',
    bytes_finished: '0',
    result: now.kind === 'download' ? JSON.stringify({ ticket_number: now.ticket }) : '{}',
    created_at: now.createdAt,
    ended_at: '',
  });
}
