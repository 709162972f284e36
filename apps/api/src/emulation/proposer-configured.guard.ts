import { CanActivate, Injectable } from '@nestjs/common';
import { ProposerClient } from './proposer-client';

/**
 * Answers 503 on the proposal endpoints of a deployment without an emulation service (docs/behaviour.md#emulation), before
 * the request itself is looked at: no change to it could make it work.
 */
@Injectable()
export class ProposerConfigured implements CanActivate {
  constructor(private readonly proposer: ProposerClient) {}

  canActivate(): boolean {
    this.proposer.baseUrl();
    return true;
  }
}
