/** The longest piece of an upstream's own words passed on in a message. */
const MAX_SAID = 200;
/** A field or header that holds a secret, with its value: `Authorization: Bearer x`, `"token":"x"`, `key=x`. */
const SECRET_FIELD =
  /\b((?:proxy-)?authorization|(?:set-)?cookie|[\w-]*token[\w-]*|[\w-]*api[-_]?key|[\w-]*secret[\w-]*|password)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;&]+/gi;
/** A credential by its scheme, as an `Authorization` header carries it. */
const SCHEME_CREDENTIAL = /\b(bearer|basic|token)\s+[\w.~+/=-]{8,}/gi;
/** Markup: an error page, whose text is no message. */
const MARKUP = /<(?:!doctype|html|head|body|[a-z]+[^>]*>)/i;

/**
 * An upstream's own words (an error body's message) made fit for a client: one line of at most MAX_SAID
 * characters, with each of `secrets` (the credentials sent to it) and anything shaped like a credential or an
 * auth header's value replaced by `[redacted]`, since some upstreams echo the request's headers. An HTML page
 * gives nothing.
 */
export function cleanUpstreamText(text: string, secrets: readonly string[] = []): string {
  if (MARKUP.test(text)) return '';
  let cleaned = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  for (const secret of secrets) if (secret.length >= 4) cleaned = cleaned.split(secret).join('[redacted]');
  cleaned = cleaned
    .replace(SECRET_FIELD, (_match, name: string, separator: string) => `${name}${separator}[redacted]`)
    .replace(SCHEME_CREDENTIAL, (_match, scheme: string) => `${scheme} [redacted]`);
  return cleaned.length > MAX_SAID ? `${cleaned.slice(0, MAX_SAID - 1)}…` : cleaned;
}

/** The secrets in credential headers: each value, and its credential without the scheme (`Bearer x`: `x`). */
export function secretsOf(credentials: Record<string, string>): string[] {
  return Object.values(credentials).flatMap((value) => {
    const credential = /^\S+\s+(\S+)$/.exec(value)?.[1];
    return credential ? [value, credential] : [value];
  });
}
