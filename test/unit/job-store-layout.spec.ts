import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { cancelledEnd, JobStore, type JobKind, type JobRecord } from '@app/jobs';

/**
 * A job record as the store kept it before it kept what the job is (up to the commit that replaced it): the
 * PresQT answer's own fields, status codes as JSON (`"200"`, `"499"`, a number on failure), `in_progress` with
 * a `cancelling` or `committing` flag, and every field written, empty when null.
 */
function previousLayout(
  kind: JobKind,
  ticket: string,
  fields: { status: string; status_code: string; flags?: Record<string, string>; result?: unknown },
): Record<string, string> {
  const ended = fields.status !== 'in_progress';
  return {
    kind,
    ticket,
    run_id: `run-${ticket}`,
    status: fields.status,
    status_code: fields.status_code,
    message: `${fields.status} message`,
    job_percentage: fields.status === 'finished' ? '100' : '40',
    files_total: '5',
    files_finished: '2',
    bytes_total: '500',
    bytes_finished: '200',
    result: JSON.stringify(fields.result ?? {}),
    created_at: '2026-11-20T10:00:00.000Z',
    ended_at: ended ? '2026-11-20T10:05:00.000Z' : '',
    ...fields.flags,
  };
}

/** The record read back: what every case shares, and what it says of itself. */
function expected(ticket: string, kind: JobKind, own: Partial<JobRecord>): JobRecord {
  return {
    kind,
    ticket,
    runId: `run-${ticket}`,
    state: 'running',
    message: '',
    filesTotal: 5,
    filesDone: 2,
    bytesTotal: 500,
    bytesDone: 200,
    percent: 40,
    failureCode: null,
    result: null,
    createdAt: '2026-11-20T10:00:00.000Z',
    endedAt: null,
    ...own,
  };
}

/**
 * Jobs stored by a deployment before the record layout changed (queued, running, being cancelled, or ended and
 * still answered) are read, and carried on, by the new one: each is rewritten in the new layout, keeping its
 * expiry, the first time any process touches it.
 */
describe('job records stored in the previous layout', () => {
  let redis: Redis;
  let prefix: string;
  let store: JobStore;

  beforeAll(() => {
    redis = new Redis(process.env.PRESQT_TEST_REDIS_URL!);
  });
  afterAll(async () => {
    await redis.quit();
  });
  beforeEach(() => {
    prefix = `layout${randomUUID().slice(0, 8)}`;
    store = new JobStore(redis, prefix, 3600);
  });

  const key = (kind: JobKind, ticket: string) => `${prefix}:job:${kind}:${ticket}`;
  const plant = async (kind: JobKind, ticket: string, fields: Parameters<typeof previousLayout>[2]) => {
    await redis.hset(key(kind, ticket), previousLayout(kind, ticket, fields));
    if (fields.status !== 'in_progress') await redis.expire(key(kind, ticket), 1000);
  };

  it('reads every state as what the job is, an ended job keeping its expiry', async () => {
    const result = {
      zip_name: 'fs_download_x.zip',
      failed_fixity: [],
      fixity_unverified: [],
      ticket_number: 'f',
    };
    await plant('download', 'f', { status: 'finished', status_code: '"200"', result });
    await plant('upload', 'x', { status: 'failed', status_code: '502' });
    await plant('transfer', 'c', { status: 'cancelled', status_code: '"499"' });
    await plant('download', 'r', { status: 'in_progress', status_code: 'null' });
    await plant('upload', 'b', { status: 'in_progress', status_code: 'null', flags: { cancelling: '1' } });
    await plant('transfer', 'm', { status: 'in_progress', status_code: 'null', flags: { committing: '1' } });
    const ended = { endedAt: '2026-11-20T10:05:00.000Z' };

    expect(await store.get('download', 'f')).toEqual(
      expected('f', 'download', {
        state: 'finished',
        message: 'finished message',
        percent: 100,
        result,
        ...ended,
      }),
    );
    expect(await store.get('upload', 'x')).toEqual(
      expected('x', 'upload', { state: 'failed', message: 'failed message', failureCode: 502, ...ended }),
    );
    expect(await store.get('transfer', 'c')).toEqual(
      expected('c', 'transfer', { state: 'cancelled', message: 'cancelled message', ...ended }),
    );
    expect(await store.get('download', 'r')).toEqual(
      expected('r', 'download', { message: 'in_progress message' }),
    );
    expect((await store.get('upload', 'b'))?.state).toBe('cancelling');
    expect((await store.get('transfer', 'm'))?.state).toBe('committing');
    const ttl = await redis.ttl(key('download', 'f'));
    expect(ttl).toBeGreaterThan(990);
    expect(ttl).toBeLessThanOrEqual(1000);
    expect(await redis.hexists(key('download', 'f'), 'run_id')).toBe(0);
  });

  it('keeps the one-job-per-kind rule: no start over a job in progress, a new run over an ended one', async () => {
    await plant('download', 'r', { status: 'in_progress', status_code: 'null' });
    await plant('upload', 'x', { status: 'failed', status_code: '502' });
    expect(await store.start('download', 'r')).toBeNull();
    const started = await store.start('upload', 'x');
    expect(started?.state).toBe('running');
    expect((await store.get('upload', 'x'))?.runId).toBe(started?.runId);
  });

  it('carries a run in progress on: its progress only grows, and it ends', async () => {
    await plant('transfer', 'r', { status: 'in_progress', status_code: 'null' });
    const run = { kind: 'transfer' as const, ticket: 'r', runId: 'run-r' };
    expect(await store.update(run, { filesTotal: 5, filesDone: 1, bytesDone: 100, percent: 20 })).toBe(true);
    expect(await store.get('transfer', 'r')).toMatchObject({ filesDone: 2, bytesDone: 200, percent: 40 });
    await plant('transfer', 'r', { status: 'in_progress', status_code: 'null' });
    expect(await store.checkpoint(run, new Map([['a.txt', { done: true }]]))).toBe(true);
    await plant('transfer', 'r', { status: 'in_progress', status_code: 'null' });
    expect(await store.beginCommit(run)).toBe(true);
    await plant('transfer', 'r', { status: 'in_progress', status_code: 'null', flags: { committing: '1' } });
    expect(await store.endFailed(run, { failureCode: 404, message: 'gone' })).toMatchObject({
      state: 'failed',
    });
    expect(await store.get('transfer', 'r')).toMatchObject({ state: 'failed', failureCode: 404 });
  });

  it('takes a cancel of a run in progress, and ends a run being cancelled only as cancelled', async () => {
    await plant('upload', 'r', { status: 'in_progress', status_code: 'null' });
    const run = { kind: 'upload' as const, ticket: 'r', runId: 'run-r' };
    expect(await store.holdRun(run, 'a worker', 10_000)).toBe(true);
    expect((await store.cancel('upload', 'r')).accepted).toBe(true);
    expect((await store.get('upload', 'r'))?.state).toBe('cancelling');
    await plant('upload', 'r', { status: 'in_progress', status_code: 'null', flags: { cancelling: '1' } });
    const finished = { state: 'finished' as const, message: 'done', result: {} as never };
    expect(await store.end(run, finished)).toBe('refused');
    await plant('upload', 'r', { status: 'in_progress', status_code: 'null', flags: { cancelling: '1' } });
    expect(await store.end(run, cancelledEnd('upload'))).toBe('ended');
    expect(await store.get('upload', 'r')).toMatchObject({ state: 'cancelled', failureCode: null });
  });

  it('refuses a cancel of a run committing, as too late', async () => {
    await plant('transfer', 'm', { status: 'in_progress', status_code: 'null', flags: { committing: '1' } });
    expect((await store.cancel('transfer', 'm')).accepted).toBe(false);
  });

  it('finds the runs in progress among them', async () => {
    await plant('download', 'r', { status: 'in_progress', status_code: 'null' });
    await plant('transfer', 'c', { status: 'cancelled', status_code: '"499"' });
    const found: string[] = [];
    for await (const record of store.inProgress()) found.push(record.ticket);
    expect(found).toEqual(['r']);
  });
});
