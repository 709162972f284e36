import Redis from 'ioredis';
import { isRedisUnavailable } from '@app/jobs';
import { killAndWait } from '../support/processes';
import { startRedis } from '../support/redis-server';

/** The error a command gets from a real redis-server started with `settings`. */
async function errorOf(settings: string[], command: (redis: Redis) => Promise<unknown>): Promise<unknown> {
  const server = await startRedis(undefined, settings);
  const redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
  try {
    await command(redis);
    return null;
  } catch (error) {
    return error;
  } finally {
    redis.disconnect();
    await killAndWait(server.process, 'SIGKILL');
  }
}

/** Which errors the API answers 503 with Retry-After (a Redis that cannot take the command now) rather than 500. */
describe('Redis unavailable', () => {
  it('reads a write refused for want of replicas (min-replicas-to-write) as unavailable', async () => {
    const error = await errorOf(['--min-replicas-to-write', '1'], (redis) => redis.set('key', 'value'));
    expect((error as Error).message).toMatch(/^NOREPLICAS /);
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it('reads a write to a replica (a demoted primary) as unavailable, and a wrong command as an error of ours', async () => {
    const replica = await errorOf(['--replicaof', '127.0.0.1', '9'], (redis) => redis.set('key', 'value'));
    expect((replica as Error).message).toMatch(/^READONLY /);
    expect(isRedisUnavailable(replica)).toBe(true);
    const wrong = await errorOf([], (redis) => redis.call('NOSUCHCOMMAND'));
    expect(isRedisUnavailable(wrong)).toBe(false);
  });
});
