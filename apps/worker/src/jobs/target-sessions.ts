import { Injectable } from '@nestjs/common';
import type { ConnectorSession } from '@app/connectors';
import { TokenCipher } from '@app/jobs';
import { TargetsRegistry, type Target } from '@app/targets';

/** A target a job works on, and a session there as the user whose token the job carries. */
export interface TargetSession {
  target: Target;
  session: ConnectorSession;
}

/**
 * Opens a job's sessions at its targets: the one place the worker decrypts a token its queue payload carries
 * (docs/behaviour.md#tokens) and has a connector open a session with it.
 */
@Injectable()
export class TargetSessions {
  constructor(
    private readonly targets: TargetsRegistry,
    private readonly cipher: TokenCipher,
  ) {}

  async open(targetName: string, encryptedToken: string): Promise<TargetSession> {
    const target = this.target(targetName);
    return { target, session: await target.connector.open(this.cipher.decrypt(encryptedToken)) };
  }

  target(targetName: string): Target {
    return this.targets.require(targetName);
  }
}
