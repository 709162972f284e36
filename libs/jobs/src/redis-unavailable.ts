/**
 * Whether an error says that Redis did not answer: a command that timed out (`commandTimeout`), or one given
 * up after the connection failed `maxRetriesPerRequest` times. ioredis gives these no class of their own to
 * test against, so they are told by what they say.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.message === 'Command timed out' ||
    error.name === 'MaxRetriesPerRequestError' ||
    error.message === 'Connection is closed.'
  );
}
