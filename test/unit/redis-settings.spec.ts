import type { RedisOptions } from 'ioredis';
import { loadSettings } from '@app/config';
import { RedisConnections, RedisSettings } from '@app/jobs';

/** Where the connections of a process with `env` go. */
const addressOf = (env: Record<string, string>) =>
  loadSettings([RedisSettings], env).get(RedisSettings).address;

/** The options every connection is made with. */
function optionsOf(env: Record<string, string>): RedisOptions {
  return new RedisConnections(addressOf(env)).options();
}

describe('Redis settings', () => {
  it('reads REDIS_URL into every connection: address, user, password, database and TLS', () => {
    expect(optionsOf({ REDIS_URL: 'rediss://app:s%40cret@redis.example.org:6380/2' })).toMatchObject({
      host: 'redis.example.org',
      port: 6380,
      username: 'app',
      password: 's@cret',
      db: 2,
      tls: {},
    });
    expect(optionsOf({ REDIS_URL: 'redis://[::1]' })).toMatchObject({ host: '::1', port: 6379, db: 0 });
    expect(optionsOf({ REDIS_URL: 'redis://:old@h:1', REDIS_PASSWORD: 'new' })).toMatchObject({
      password: 'new',
    });
  });

  it('reads Redis Sentinel: the sentinels, the name and both passwords', () => {
    const options = optionsOf({
      REDIS_SENTINELS: 's1:26379, [fd00::2]:26380,s3.example.org:26381',
      REDIS_SENTINEL_NAME: 'presqt',
      REDIS_SENTINEL_PASSWORD: 'sentinels',
      REDIS_PASSWORD: 'data',
    });
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 'fd00::2', port: 26380 },
        { host: 's3.example.org', port: 26381 },
      ],
      name: 'presqt',
      sentinelPassword: 'sentinels',
      password: 'data',
    });
  });

  it('describes where it connects without a password', () => {
    const url = addressOf({ REDIS_URL: 'redis://app:secret@redis:6379/0' });
    expect(new RedisConnections(url).describe()).toBe('redis://redis:6379/0');
    const sentinel = addressOf({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'presqt',
      REDIS_SENTINEL_PASSWORD: 'secret',
    });
    expect(new RedisConnections(sentinel).describe()).toBe(
      'the primary "presqt" of the sentinels s1:26379, s2:26379',
    );
  });
});
