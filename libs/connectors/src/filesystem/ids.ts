/**
 * Resource ids: the base64url of a path relative to the user's folder, one URL segment without a `.`. Names
 * starting with `.presqt` hold the service's own metadata: never listed and never addressable by an id.
 */

const RESERVED_PREFIX = '.presqt';

export function isReserved(name: string): boolean {
  return name.startsWith(RESERVED_PREFIX);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The id of the resource at a path relative to the user's folder. */
export function encodeId(relativePath: string): string {
  return Buffer.from(relativePath, 'utf8').toString('base64url');
}

/** The relative path an id names, or null when no resource can have that id. */
export function decodeId(id: string): string | null {
  if (!BASE64URL.test(id)) return null;
  const path = Buffer.from(id, 'base64url').toString('utf8');
  // Only the canonical encoding counts, so each resource has one id; this also rejects invalid UTF-8.
  if (encodeId(path) !== id) return null;
  if (path.includes('\0') || path.includes('\\')) return null;
  const segments = path.split('/');
  // An absolute path starts with an empty segment.
  const unsafe = (segment: string) =>
    segment === '' || segment === '.' || segment === '..' || isReserved(segment);
  return segments.some(unsafe) ? null : path;
}
