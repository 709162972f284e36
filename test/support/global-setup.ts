import { startRedis } from './redis-server';

/** One Redis for the whole run; every test stack uses its own key prefix in it. */
export default async function globalSetup(): Promise<void> {
  const redis = await startRedis();
  // test workers inherit the environment; the teardown reads the global
  process.env.PRESQT_TEST_REDIS_URL = redis.url;
  (globalThis as { presqtTestRedis?: unknown }).presqtTestRedis = redis.process;
}
