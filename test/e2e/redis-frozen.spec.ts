import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { killAndWait } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { startStack, type Stack } from '../support/stack';

const TOKEN = { 'presqt-source-token': 'alice-token' };
const REDIS_TIMEOUT_MS = 1500;
/** What a user waits at most for an answer while Redis is frozen: the timeout and some slack, not for ever. */
const ANSWER_WITHIN_MS = REDIS_TIMEOUT_MS + 2500;

/** An API whose Redis (of its own, not the suite's) is frozen with SIGSTOP and then thawed with SIGCONT. */
describe('API with a frozen Redis (real API and Redis)', () => {
  let redis: ChildProcess;
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    const root = mkdtempSync(join(tmpdir(), 'presqt-frozen-'));
    writeTree(root, { 'alice/Project/a.txt': 'a' });
    stack = await startStack({
      worker: false,
      env: {
        TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root)]),
        REDIS_URL: started.url,
        REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    redis?.kill('SIGCONT');
    await stack?.stop();
    if (redis) await killAndWait(redis);
  });

  const timed = async (call: () => Promise<request.Response>) => {
    const started = Date.now();
    const response = await call();
    return { response, elapsedMs: Date.now() - started };
  };
  const jobStatus = () =>
    http
      .get('/api_v1/job_status/download.json/')
      .set(TOKEN)
      .timeout(ANSWER_WITHIN_MS + 5000);
  const startDownload = () =>
    http
      .get(`/api_v1/targets/fs/resources/${fsId('Project')}.zip/`)
      .set({ ...TOKEN, 'presqt-email-opt-in': '' })
      .timeout(ANSWER_WITHIN_MS + 5000);

  it('answers 503 within seconds while Redis does not answer, and recovers by itself', async () => {
    await jobStatus().expect(404);
    redis.kill('SIGSTOP');
    for (const call of [jobStatus, startDownload, jobStatus]) {
      const { response, elapsedMs } = await timed(call);
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: expect.stringMatching(/Redis.*not answer/) });
      expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    }
    // what does not need Redis keeps working meanwhile
    await http.get('/api_v1/targets/fs/resources/').set(TOKEN).expect(200);

    redis.kill('SIGCONT');
    // the start answered 503 ran once Redis woke up, and was ended right behind it: it holds no slot
    const { response, elapsedMs } = await timed(jobStatus);
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({
      status: 'failed',
      message: 'PresQT Error: the job could not be started: Redis did not answer in time.',
    });
    const download = await startDownload().expect(202);
    expect(download.body).toMatchObject({ ticket_number: expect.any(String) });
    await jobStatus().expect(202);
  });
});
