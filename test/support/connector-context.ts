import { tmpdir } from 'node:os';
import type { ConnectorContext } from '@app/connectors';

/** Quick retries and short timeouts, so fault tests do not wait long. */
export const TEST_UPSTREAM = {
  timeoutMs: 3000,
  retries: 3,
  retryBaseMs: 20,
  maxWaitMs: 2000,
  deadlineMs: 10_000,
  minBytesPerSecond: 1024,
};

/** The context a connector gets from the targets registry, for creating one in a test. */
export function connectorContext(overrides: Partial<ConnectorContext> = {}): ConnectorContext {
  return {
    targetName: 'test',
    dataDir: tmpdir(),
    configDir: tmpdir(),
    perPage: 10,
    upstream: TEST_UPSTREAM,
    statusTimeoutMs: 1000,
    ...overrides,
  };
}
