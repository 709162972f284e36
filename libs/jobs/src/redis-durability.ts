import type { LoggerService } from '@nestjs/common';
import type Redis from 'ioredis';

/** A Redis setting the queues' durability depends on, the values that keep it, and what goes wrong otherwise. */
interface DurabilitySetting {
  name: string;
  safe: (value: string, all: Map<string, string>) => boolean;
  advice: string;
}

/** docs/redis.md#durability says why each matters. */
const SETTINGS: DurabilitySetting[] = [
  {
    name: 'maxmemory-policy',
    safe: (value) => value === 'noeviction',
    advice:
      'set maxmemory-policy noeviction: under any other policy Redis deletes keys when memory runs short, and queued jobs and their records go with them',
  },
  {
    name: 'appendonly',
    safe: (value) => value === 'yes',
    advice:
      'set appendonly yes (with appendfsync everysec): without the append-only file a restart of Redis loses the jobs queued since the last snapshot',
  },
  {
    name: 'appendfsync',
    // only matters with the append-only file on; `always` is safe too, only slower
    safe: (value, all) => all.get('appendonly') !== 'yes' || value !== 'no',
    advice:
      'set appendfsync everysec: with no the operating system decides when the append-only file reaches the disk, and a crash of the host can lose more than a second of jobs',
  },
];

/**
 * Reads the settings above (CONFIG GET), warns, naming the setting and its safe value, for each one that would
 * let Redis lose jobs, and then logs them all. A server that refuses CONFIG (managed services often do) is told of in the log,
 * and nothing else happens: the process runs either way.
 */
export async function checkRedisDurability(redis: Redis, logger: LoggerService): Promise<void> {
  const values = new Map<string, string>();
  try {
    for (const { name } of SETTINGS) {
      const [, value] = (await redis.config('GET', name)) as string[];
      if (value !== undefined) values.set(name, value);
    }
  } catch (error) {
    logger.log(
      `could not read Redis's settings (CONFIG GET: ${(error as Error).message}); make sure of maxmemory-policy noeviction, appendonly yes and appendfsync everysec on the primary and its replicas (docs/redis.md#durability)`,
    );
    return;
  }
  for (const setting of SETTINGS) {
    const value = values.get(setting.name);
    if (value !== undefined && !setting.safe(value, values))
      logger.warn(`Redis ${setting.name} is ${value}: ${setting.advice} (docs/redis.md#durability)`);
  }
  logger.log(`Redis settings: ${[...values].map(([name, value]) => `${name} ${value}`).join(', ')}`);
}
