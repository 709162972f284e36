import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { JOB_KIND_DESCRIPTIONS, type JobKind, type TokenRole } from '@app/job-kinds';

/**
 * A job belongs to the user behind its token(s): the ticket is an HMAC of the token(s) under the server's
 * secret (docs/behaviour.md#tickets), so it identifies the user without storing anything that would let someone act as them.
 */
export function ticketFor(secretKey: string, ...tokens: string[]): string {
  const mac = createHmac('sha256', secretKey);
  // length-prefix each token so ('ab','c') and ('a','bc') never share a ticket
  for (const token of tokens) mac.update(`${Buffer.byteLength(token)}:${token}`);
  return mac.digest('hex');
}

/** The ticket of the user's job of `kind`: the tokens its description names, in that order. */
export function jobTicket(
  secretKey: string,
  kind: JobKind,
  tokens: Partial<Record<TokenRole, string>>,
): string {
  return ticketFor(
    secretKey,
    ...JOB_KIND_DESCRIPTIONS[kind].tokens.map((role) => {
      const token = tokens[role];
      if (token === undefined) throw new Error(`a ${kind}'s ticket needs the ${role} token`);
      return token;
    }),
  );
}

const ALGORITHM = 'aes-256-gcm';

/** Encrypts tokens for queue payloads (docs/behaviour.md#tokens) with a key derived from SECRET_KEY. */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, 'presqt', 'queue-payload-tokens', 32));
  }

  encrypt(token: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const data = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
  }

  decrypt(sealed: string): string {
    const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !tag || !data) throw new Error('malformed encrypted token');
    const decipher = createDecipheriv(ALGORITHM, this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  }
}
