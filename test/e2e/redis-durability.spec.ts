import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { killAndWait } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { startApp, waitForOutput, type RunningProcess } from '../support/stack';

/** The API's start-up check of the Redis settings its jobs' durability depends on (docs/redis.md#durability). */
describe('Redis durability settings at start-up (real API and Redis)', () => {
  let redis: ChildProcess | undefined;
  let api: RunningProcess | undefined;

  afterEach(async () => {
    api?.child.kill('SIGTERM');
    await api?.exited;
    if (redis) await killAndWait(redis);
  });

  /** Starts an API on a Redis of its own with `settings`; answers what it logged once it read them. */
  const logOf = async (settings: string[], logged: RegExp): Promise<string> => {
    const started = await startRedis(undefined, settings);
    redis = started.process;
    const dataDir = mkdtempSync(join(tmpdir(), 'presqt-durability-'));
    api = startApp('api', { REDIS_URL: started.url, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
    await waitForOutput(api, logged, 30_000);
    return api.output();
  };

  it('warns, naming the setting and its safe value, for each setting under which Redis may lose jobs', async () => {
    const log = await logOf(['--maxmemory-policy', 'allkeys-lru'], /Redis settings:/);
    expect(log).toMatch(/Redis maxmemory-policy is allkeys-lru: set maxmemory-policy noeviction/);
    expect(log).toMatch(/Redis appendonly is no: set appendonly yes \(with appendfsync everysec\)/);
    expect(log).not.toContain('appendfsync is');
  });

  it('warns about appendfsync no when the append-only file is on', async () => {
    const log = await logOf(['--appendonly', 'yes', '--appendfsync', 'no'], /Redis settings:/);
    expect(log).toMatch(/Redis appendfsync is no: set appendfsync everysec/);
    expect(log).not.toMatch(/Redis (maxmemory-policy|appendonly) is/);
  });

  it('says nothing more than the settings when they are safe', async () => {
    const log = await logOf(['--appendonly', 'yes', '--appendfsync', 'everysec'], /Redis settings:/);
    expect(log).toMatch(/Redis settings: maxmemory-policy noeviction, appendonly yes, appendfsync everysec/);
    expect(log).not.toMatch(/Redis [a-z-]+ is /);
  });

  it('starts and says what to check by hand when the server refuses CONFIG', async () => {
    const log = await logOf(['--rename-command', 'CONFIG', ''], /could not read Redis's settings/);
    expect(log).toMatch(/make sure of maxmemory-policy noeviction, appendonly yes and appendfsync everysec/);
    await waitForOutput(api!, /API listening/);
  });
});
