import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { JobSettings, REDIS_CLIENT, RedisSettings } from '@app/jobs';
import type { ProposalState } from './proposer-client';

/** Deletes a grant only while it still holds what the caller verified, so that one token serves one download. */
const CONSUME = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

interface StoredGrant {
  run_id: string;
  /** sha256 (hex) of the token's secret part: the token itself is never stored (docs/behaviour.md#tokens) */
  verifier_sha256: string;
}

/**
 * Emulation state in Redis, shared by every API process: the single-use tokens that let the proposer fetch one
 * download's zip, and the proposals this deployment started.
 *
 * A token is `<selector>.<verifier>`: the selector names the stored grant, and the verifier is checked against
 * the stored hash in constant time, so neither a lookup nor a comparison reveals anything about a valid token.
 */
@Injectable()
export class EmulationStore {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly redisSettings: RedisSettings,
    private readonly jobs: JobSettings,
  ) {}

  /** A new token granting one download of run `runId` of `ticket`, valid for `ttlMs`. */
  async grant(ticket: string, runId: string, ttlMs: number): Promise<string> {
    const selector = randomBytes(12).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const grant: StoredGrant = { run_id: runId, verifier_sha256: sha256(verifier) };
    await this.redis.set(this.grantKey(ticket, selector), JSON.stringify(grant), 'PX', ttlMs);
    return `${selector}.${verifier}`;
  }

  async revoke(ticket: string, token: string): Promise<void> {
    const [selector] = token.split('.');
    if (selector) await this.redis.del(this.grantKey(ticket, selector));
  }

  /**
   * Uses the token up: answers the run it grants, or null when it is not a token of this ticket or has been
   * used. A wrong token consumes nothing; of two uses of the right one, exactly one succeeds.
   */
  async redeem(ticket: string, token: string): Promise<string | null> {
    const [selector, verifier, ...rest] = token.split('.');
    if (!selector || !verifier || rest.length > 0) return null;
    const key = this.grantKey(ticket, selector);
    const stored = await this.redis.get(key);
    if (!stored) return null;
    const grant = JSON.parse(stored) as StoredGrant;
    const expected = Buffer.from(grant.verifier_sha256, 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sha256(verifier), 'hex'))) return null;
    return (await this.redis.eval(CONSUME, 1, key, stored)) === 1 ? grant.run_id : null;
  }

  async rememberProposal(id: string): Promise<void> {
    const pending: ProposalState = { state: 'pending' };
    await this.redis.set(this.proposalKey(id), JSON.stringify(pending), 'EX', this.jobs.ttlSeconds);
  }

  /**
   * What we last learnt of a proposal we started; null for an id this deployment did not start (or that has
   * expired). An outcome is kept because the proposer hands it out only once.
   */
  async proposal(id: string): Promise<ProposalState | null> {
    const stored = await this.redis.get(this.proposalKey(id));
    return stored ? (JSON.parse(stored) as ProposalState) : null;
  }

  async settleProposal(id: string, outcome: Exclude<ProposalState, { state: 'pending' }>): Promise<void> {
    await this.redis.set(this.proposalKey(id), JSON.stringify(outcome), 'KEEPTTL', 'XX');
  }

  private grantKey(ticket: string, selector: string): string {
    return `${this.redisSettings.prefix}:emulation:grant:${ticket}:${selector}`;
  }

  private proposalKey(id: string): string {
    return `${this.redisSettings.prefix}:emulation:proposal:${id}`;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
