import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { freePort } from '../support/ports';
import { killAndWait } from '../support/processes';
import { startRedis, waitForPort } from '../support/redis-server';
import { startApp, startStack, type RunningProcess, type Stack } from '../support/stack';

const USERS = ['alice', 'bob', 'carol', 'dave'];
const tokenOf = (user: string) => ({ 'presqt-source-token': `${user}-token` });
/** A header the route does not use, different on every request. */
const junkDestination = () => ({ 'presqt-destination-token': randomUUID() });
const LISTINGS = 4;
const JOB_STARTS = 3;

/** A second API process of the same deployment as `stack` (same Redis and prefix), on a port of its own. */
async function secondApi(stack: Stack): Promise<{ api: RunningProcess; baseUrl: string }> {
  const port = await freePort();
  const api = startApp('api', { ...stack.env, PORT: String(port) });
  await waitForPort(port, 20_000);
  return { api, baseUrl: `http://127.0.0.1:${port}` };
}

/** Rate limits counted in Redis: two API processes of one deployment share each count. */
describe('rate limits across API processes (two real APIs and Redis)', () => {
  let stack: Stack;
  let other: { api: RunningProcess; baseUrl: string };
  let apis: ReturnType<typeof request>[];

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-shared-limits-'));
    writeTree(root, Object.fromEntries(USERS.map((user) => [`${user}/Study/notes.txt`, 'field notes\n'])));
    const tokens = Object.fromEntries(USERS.map((user) => [`${user}-token`, user]));
    stack = await startStack({
      worker: false,
      env: {
        TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root, { options: { root, tokens } })]),
        RATE_LIMITS: 'on',
        RATE_LIMIT_LISTINGS: String(LISTINGS),
        RATE_LIMIT_JOB_STARTS: String(JOB_STARTS),
        RATE_LIMIT_LISTINGS_PER_ADDRESS: '100',
        RATE_LIMIT_JOB_STARTS_PER_ADDRESS: '100',
      },
    });
    other = await secondApi(stack);
    apis = [request(stack.baseUrl), request(other.baseUrl)];
  });

  afterAll(async () => {
    other?.api.child.kill('SIGTERM');
    await other?.api.exited;
    await stack?.stop();
  });

  /** The statuses of `count` requests, sent in turn to one API and the other. */
  const statuses = async (count: number, send: (http: ReturnType<typeof request>) => request.Test) => {
    const answered: number[] = [];
    for (let i = 0; i < count; i++) answered.push((await send(apis[i % 2])).status);
    return answered;
  };

  it('counts one listing limit per token over both processes', async () => {
    const answered = await statuses(LISTINGS + 2, (http) =>
      http.get('/api_v1/targets/fs/resources/').set(tokenOf('alice')),
    );
    expect(answered).toEqual([...Array(LISTINGS).fill(200), 429, 429]);
  });

  it('counts a listing against the token the route uses, whatever other token header comes with it', async () => {
    const answered = await statuses(LISTINGS + 2, (http) =>
      http.get('/api_v1/targets/fs/resources/').set({ ...tokenOf('bob'), ...junkDestination() }),
    );
    expect(answered).toEqual([...Array(LISTINGS).fill(200), 429, 429]);
  });

  it('counts downloads against the source token, whatever destination token comes with them', async () => {
    const answered = await statuses(JOB_STARTS + 2, (http) =>
      http
        .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
        .set({ ...tokenOf('carol'), ...junkDestination(), 'presqt-email-opt-in': '' }),
    );
    // the first starts; the next are refused as a second download in progress, and still count as starts
    expect(answered).toEqual([202, ...Array(JOB_STARTS - 1).fill(400), 429, 429]);
  });
});

/**
 * The limiter's Redis stops answering: requests are let through uncounted at once, or after a count's short
 * wait (300 ms), not held for REDIS_TIMEOUT_MS.
 */
describe('rate limits while Redis does not answer (real API and Redis)', () => {
  const REDIS_TIMEOUT_MS = 3000;
  /** a listing's longest wait while Redis is frozen: well under REDIS_TIMEOUT_MS */
  const FROZEN_ANSWER_MS = 1500;
  let redis: Awaited<ReturnType<typeof startRedis>>['process'];
  let redisPort: number;
  let stack: Stack;

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    redisPort = Number(new URL(started.url).port);
    const root = mkdtempSync(join(tmpdir(), 'presqt-limits-no-redis-'));
    writeTree(root, { 'alice/Study/notes.txt': 'field notes\n' });
    stack = await startStack({
      worker: false,
      env: {
        TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root)]),
        REDIS_URL: started.url,
        REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
        RATE_LIMITS: 'on',
        RATE_LIMIT_LISTINGS: '2',
      },
    });
  });

  afterAll(async () => {
    redis?.kill('SIGCONT');
    await stack?.stop();
    if (redis) await killAndWait(redis);
  });

  const list = () =>
    request(stack.baseUrl)
      .get('/api_v1/targets/fs/resources/')
      .set({ 'presqt-source-token': 'alice-token' })
      .timeout(REDIS_TIMEOUT_MS + 10_000);

  it('lets listings through while Redis is frozen, then dead, and counts again once it is back', async () => {
    await list().expect(200);
    redis.kill('SIGSTOP');
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await list().expect(200);
      expect(Date.now() - started).toBeLessThan(FROZEN_ANSWER_MS);
    }
    await killAndWait(redis, 'SIGKILL');
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await list().expect(200);
      expect(Date.now() - started).toBeLessThan(1000);
    }
    redis = (await startRedis(redisPort)).process;
    // the connection comes back by itself; then the third listing of the window is refused again
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (status !== 429 && Date.now() < deadline) status = (await list()).status;
    expect(status).toBe(429);
  });
});
