import { setting, Settings } from '@app/config';

/**
 * Where Redis is: one server at a URL, or the primary that Redis Sentinel names (docs/redis.md). Every
 * connection of a process (the job store, the queues, the API's stores) is made from these.
 */
export type RedisAddress =
  | { kind: 'server'; url: string; password: string | undefined }
  | {
      kind: 'sentinel';
      sentinels: SentinelAddress[];
      /** the name the sentinels monitor the primary under */
      name: string;
      /** the sentinels' own password (their requirepass); undefined: none */
      sentinelPassword: string | undefined;
      /** the primary's and replicas' password; undefined: none */
      password: string | undefined;
    };

interface SentinelAddress {
  host: string;
  port: number;
}

/** `host:port` (an IPv6 address in brackets), comma-separated. */
const SENTINEL_ADDRESS = String.raw`(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}`;
const SENTINEL_LIST = new RegExp(`^${SENTINEL_ADDRESS}(\\s*,\\s*${SENTINEL_ADDRESS})*$`);

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The Redis that holds the queues, the job records and the API's own state. */
export class RedisSettings extends Settings(
  'Redis',
  {
    url: setting.text('REDIS_URL', {
      pattern: /^rediss?:\/\/.+/,
      expected: 'a redis:// or rediss:// URL',
      shownDefault: `\`${DEFAULT_REDIS_URL}\``,
      doc: 'Redis for queues and job records (`rediss://` for TLS)',
    }),
    sentinels: setting.text('REDIS_SENTINELS', {
      pattern: SENTINEL_LIST,
      valid: (list) => sentinelAddresses(list).every(({ port }) => port >= 1 && port <= 65535),
      expected:
        'a comma-separated list of host:port (ports 1 to 65535), such as sentinel-1:26379,sentinel-2:26379,sentinel-3:26379',
      read: sentinelAddresses,
      doc: 'Redis Sentinel instead of `REDIS_URL`: the sentinels ([redis.md](redis.md))',
    }),
    sentinelName: setting.text('REDIS_SENTINEL_NAME', {
      pattern: /^[A-Za-z0-9._-]+$/,
      expected: 'the name the sentinels monitor the primary under (letters, digits, . _ -)',
      doc: 'the name the sentinels monitor the primary under (required with `REDIS_SENTINELS`)',
    }),
    sentinelPassword: setting.text('REDIS_SENTINEL_PASSWORD', {
      secret: true,
      doc: "the sentinels' password",
    }),
    password: setting.text('REDIS_PASSWORD', {
      secret: true,
      doc: "the primary's and replicas' password (with `REDIS_URL`, instead of the URL's)",
    }),
    prefix: setting.text('REDIS_PREFIX', {
      pattern: /^[A-Za-z0-9_-]+$/,
      expected: 'made of letters, digits, _ and - only',
      default: 'presqt',
      doc: 'prefix of every Redis key (several deployments can share one Redis)',
    }),
    timeoutMs: setting.int('REDIS_TIMEOUT_MS', {
      min: 100,
      max: 60_000,
      // 1 s: a healthy Redis answers in well under a millisecond, and a frozen primary's 503 must come within 2 s
      default: 1000,
      doc: 'how long the API waits for Redis to answer a command before answering 503 (the worker waits)',
    }),
  },
  (_values, rules) => {
    if (!rules.given('sentinels')) return;
    rules.require('sentinelName', 'REDIS_SENTINELS is set');
    if (rules.given('url'))
      rules.refuse(
        'url',
        'and REDIS_SENTINELS are both set: set REDIS_URL (one Redis server) or REDIS_SENTINELS (Redis Sentinel), not both',
      );
  },
) {
  /** where the connections go */
  get address(): RedisAddress {
    const { sentinels, password } = this;
    if (sentinels === undefined) return { kind: 'server', url: this.url ?? DEFAULT_REDIS_URL, password };
    // the rules have required the name with REDIS_SENTINELS
    const name = this.sentinelName!;
    return { kind: 'sentinel', sentinels, name, sentinelPassword: this.sentinelPassword, password };
  }
}

/** The addresses of a REDIS_SENTINELS list (one that matches SENTINEL_LIST). */
function sentinelAddresses(list: string): SentinelAddress[] {
  return list.split(',').map((entry) => {
    const address = entry.trim();
    const colon = address.lastIndexOf(':');
    return {
      host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'),
      port: Number(address.slice(colon + 1)),
    };
  });
}
