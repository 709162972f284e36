import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';

/** how long a confirmation is not asked for again after no replica gave one (the replica is down) */
const QUIET_AFTER_SHORTFALL_MS = 10_000;

/**
 * Redis replicates asynchronously: a write the primary answered may not have reached a replica when the
 * primary dies, and the replica promoted in its place would not have it. For the writes a user is told about
 * (a job accepted, a job ended) the writer waits, briefly, until a replica has confirmed it (Redis's WAIT).
 * Without replicas (no Sentinel) there is nothing to wait for; when no replica confirms in time (it is down,
 * or the primary has none left after a failover) the write stands, a warning says so, and confirmations pause
 * for a while instead of slowing every job down.
 */
export class ReplicaConfirmation {
  private readonly logger = new Logger('Redis');
  private quietUntil = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly timeoutMs: number,
  ) {}

  /** Waits until a replica has every write sent so far on `client`, or `timeoutMs`. */
  async confirm(client: Redis): Promise<void> {
    if (!this.enabled || Date.now() < this.quietUntil) return;
    const replicas = await client.wait(1, this.timeoutMs);
    if (replicas >= 1) return;
    this.quietUntil = Date.now() + QUIET_AFTER_SHORTFALL_MS;
    this.logger.warn(
      `no Redis replica confirmed a write within ${this.timeoutMs} ms: the primary has no replica in sync, so a failover now would lose recent job changes`,
    );
  }
}
