import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { killAndWait } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { startStack, waitForOutput, workerHealthUrl, type Stack } from '../support/stack';

/** Polls `url` until it answers `status`, for at most `withinMs`. */
async function untilStatus(url: string, path: string, status: number, withinMs: number) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const response = await request(url).get(path).timeout(5000);
    if (response.status === status || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Liveness and readiness of the API and the worker, with a Redis of their own that stops and comes back. */
describe('health (real API, worker and Redis)', () => {
  let redis: { url: string; process: ChildProcess };
  let stack: Stack;
  let endpoints: [string, string][];

  beforeAll(async () => {
    redis = await startRedis();
    const root = mkdtempSync(join(tmpdir(), 'presqt-health-'));
    writeTree(root, { 'alice/Project/a.txt': 'a' });
    stack = await startStack({
      env: { TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root)]), REDIS_URL: redis.url },
    });
    await waitForOutput(stack.worker!, /Worker health and metrics on/);
    endpoints = [
      ['API', stack.baseUrl],
      ['worker', workerHealthUrl(stack)],
    ];
  });

  afterAll(async () => {
    await stack?.stop();
    if (redis) await killAndWait(redis.process);
  });

  it('are live and ready with Redis, the data directory and the targets', async () => {
    for (const [, url] of endpoints) {
      const live = await request(url).get('/health/live').expect(200);
      expect(live.body).toMatchObject({ status: 'ok' });
      const ready = await request(url).get('/health/ready').expect(200);
      expect(ready.body).toMatchObject({
        status: 'ok',
        details: { redis: { status: 'up' }, data_dir: { status: 'up' }, targets: { status: 'up', count: 1 } },
      });
    }
  });

  it('turn unready (503, JSON) while Redis is stopped, stay live, and are ready again when it returns', async () => {
    const port = Number(new URL(redis.url).port);
    await killAndWait(redis.process);
    for (const [, url] of endpoints) {
      const unready = await untilStatus(url, '/health/ready', 503, 10_000);
      expect(unready.status).toBe(503);
      expect(unready.body).toMatchObject({
        error: 'not ready: redis',
        status: 'error',
        details: { redis: { status: 'down' }, data_dir: { status: 'up' } },
      });
      await request(url).get('/health/live').expect(200);
    }
    redis = await startRedis(port);
    for (const [, url] of endpoints) {
      const ready = await untilStatus(url, '/health/ready', 200, 15_000);
      expect(ready.status).toBe(200);
    }
  });

  it('are not part of the PresQT API documentation', async () => {
    const document = await request(stack.baseUrl).get('/api/docs-json').expect(200);
    expect(Object.keys(document.body.paths as object).filter((path) => path.includes('health'))).toEqual([]);
  });
});
