import type Redis from 'ioredis';

/**
 * The replies of a Redis that cannot take a command now: a demoted primary, one loading its data, one without
 * its primary, or one refusing writes for want of replicas (min-replicas-to-write).
 */
const UNAVAILABLE_REPLIES = /^(READONLY|LOADING|MASTERDOWN|NOREPLICAS) /;

/**
 * Whether an error says that Redis did not answer: a command that timed out (`commandTimeout`), one given up
 * after the connection failed `maxRetriesPerRequest` times, one sent while no primary was connected (the API
 * sends none then), or one refused by a server that is not, or not yet, the primary. ioredis gives these no
 * class of their own to test against, so they are told by what they say.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.message === 'Command timed out' ||
    error.name === 'MaxRetriesPerRequestError' ||
    error.message === 'Connection is closed.' ||
    error.message.startsWith("Stream isn't writeable") ||
    UNAVAILABLE_REPLIES.test(error.message)
  );
}

/** how long a write that met an unreachable Redis is tried again: longer than a failover takes */
const RETRY_FOR_MS = 60_000;
const RETRY_PAUSE_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** for each connection, a promise of its being back, with one listener however many writes wait */
const connectionBack = new WeakMap<Redis, Promise<void>>();

function whenBack(client: Redis): Promise<void> {
  let back = connectionBack.get(client);
  if (!back) {
    back = new Promise((resolve) =>
      client.once('ready', () => {
        connectionBack.delete(client);
        resolve();
      }),
    );
    connectionBack.set(client, back);
  }
  return back;
}

/**
 * Makes a write that must not be lost to a Redis that is unreachable for a moment (a failover): tried now,
 * and, when Redis did not answer, tried again in the background (the caller does not wait): at once if the
 * connection stands (the command waits behind the timed-out one), else as soon as it is back. For the API's
 * clean-ups (the slot of a job whose start was answered 503, an upload's reservation), which otherwise would
 * hold the user up until they lapse.
 */
export async function writeWhenBack(client: Redis, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isRedisUnavailable(error)) throw error;
    void retryWhenBack(client, write);
  }
}

async function retryWhenBack(client: Redis, write: () => Promise<unknown>): Promise<void> {
  const until = Date.now() + RETRY_FOR_MS;
  while (Date.now() < until) {
    // never at once: a connection being closed fails a write at once and reads as ready until it has closed
    await (client.status === 'ready' ? sleep(RETRY_PAUSE_MS) : whenBack(client));
    try {
      await write();
      return;
    } catch (error) {
      if (!isRedisUnavailable(error)) return;
    }
  }
}
