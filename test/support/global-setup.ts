import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from './redis-server';

/**
 * One Redis for the whole run; every test stack uses its own key prefix in it. Every temporary file of the
 * run (the tests', and the API's and workers' they start) goes below one folder, which the teardown removes:
 * os.tmpdir() reads TMPDIR, which test workers and their child processes inherit.
 */
export default async function globalSetup(): Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'presqt-test-run-'));
  process.env.TMPDIR = runDir;
  const redis = await startRedis();
  // test workers inherit the environment; the teardown reads the globals
  process.env.PRESQT_TEST_REDIS_URL = redis.url;
  Object.assign(globalThis, { presqtTestRedis: redis.process, presqtTestRunDir: runDir });
}
