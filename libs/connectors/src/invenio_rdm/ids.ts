/**
 * Resource ids at an InvenioRDM instance. A record (or draft) has its record id: `xxxxx-xxxxx` in Crockford's
 * base32 on most instances, digits on Zenodo. A file has `<record id>:<key>`, the key (its name, which may hold
 * any character) in base64url, so that the id holds no slash, dot or percent sign.
 */

export type ParsedId = { kind: 'record'; record: string } | { kind: 'file'; record: string; key: string };

/** Record ids: letters, digits and `-` (base32 ids, Zenodo's numbers), never a colon. */
const RECORD_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
const ENCODED_KEY = /^[A-Za-z0-9_-]+$/;

/** What an id names, or null when no InvenioRDM resource can have it. */
export function parseId(id: string): ParsedId | null {
  const parts = id.split(':');
  if (!RECORD_ID.test(parts[0])) return null;
  if (parts.length === 1) return { kind: 'record', record: parts[0] };
  if (parts.length !== 2 || !ENCODED_KEY.test(parts[1])) return null;
  const key = Buffer.from(parts[1], 'base64url').toString('utf8');
  if (key === '' || Buffer.from(key, 'utf8').toString('base64url') !== parts[1]) return null;
  return { kind: 'file', record: parts[0], key };
}

export function fileResourceId(recordId: string, key: string): string {
  return `${recordId}:${Buffer.from(key, 'utf8').toString('base64url')}`;
}
