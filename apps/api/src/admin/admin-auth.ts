import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/**
 * The secret a request offers: a Bearer token, or the password of Basic auth (what a browser prompts for). The
 * header is the scheme, spaces and one credential (RFC 9110, 11.4); anything after the credential refuses it.
 */
function offeredSecret(authorization: string | undefined): string | undefined {
  const [, scheme, value] = /^(\S+) +(\S+)$/.exec(authorization ?? '') ?? [];
  if (/^bearer$/i.test(scheme ?? '')) return value;
  if (/^basic$/i.test(scheme ?? '') && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  return undefined;
}

/** Compared as digests, in constant time, so neither the length nor the content leaks through timing. */
function sameSecret(offered: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered), digest(expected));
}

/**
 * Lets through only requests carrying ADMIN_TOKEN; others get 401 with a Basic challenge, so a browser asks
 * for it (any user name, the token as password).
 */
export function requireAdminToken(adminToken: string) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const offered = offeredSecret(request.headers.authorization);
    if (offered !== undefined && sameSecret(offered, adminToken)) return next();
    response
      .status(401)
      .setHeader('WWW-Authenticate', 'Basic realm="PresQT queues", charset="UTF-8"')
      .json({ error: 'PresQT Error: the queue dashboard needs the admin token.' });
  };
}
