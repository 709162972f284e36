/**
 * Resource ids: the base64url of a path below the user's WebDAV root (`Project/data/values.csv`), one URL
 * segment without a dot, as the filesystem's. A project is a top-level folder, so its id is its name's.
 */

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeId(path: readonly string[]): string {
  return Buffer.from(path.join('/'), 'utf8').toString('base64url');
}

/** The path an id names, or null when no resource can have that id. */
export function decodeId(id: string): string[] | null {
  if (!BASE64URL.test(id)) return null;
  const path = Buffer.from(id, 'base64url').toString('utf8');
  // only the canonical encoding counts, so each resource has one id; this also refuses invalid UTF-8
  if (Buffer.from(path, 'utf8').toString('base64url') !== id) return null;
  const segments = path.split('/');
  const unsafe = (segment: string) =>
    segment === '' || segment === '.' || segment === '..' || segment.includes('\0');
  return segments.some(unsafe) ? null : segments;
}
