/**
 * Resource ids: the base64url of a resource's path below the target's root, one URL segment without a dot.
 * The path is the object key after the target's prefix (with the bucket first where each bucket is a
 * project); a project or folder, being a key prefix, ends with `/`, so that a file `a/b` and a folder
 * `a/b/` (S3 may hold both) have ids of their own.
 */

export interface ParsedId {
  kind: 'container' | 'item';
  /** the path's names: the project first */
  segments: string[];
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Names a path may have: S3 takes any key, a walk does not take an empty name, `.` or `..`. */
export function isWalkableName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('\0');
}

export function encodeId(segments: readonly string[], kind: ParsedId['kind']): string {
  const path = segments.join('/') + (kind === 'container' ? '/' : '');
  return Buffer.from(path, 'utf8').toString('base64url');
}

/** What an id names, or null when no resource can have it. */
export function parseId(id: string): ParsedId | null {
  if (!BASE64URL.test(id)) return null;
  const path = Buffer.from(id, 'base64url').toString('utf8');
  // only the canonical encoding counts, so each resource has one id; this also refuses invalid UTF-8
  if (Buffer.from(path, 'utf8').toString('base64url') !== id) return null;
  const kind = path.endsWith('/') ? 'container' : 'item';
  const segments = (kind === 'container' ? path.slice(0, -1) : path).split('/');
  if (!segments.every(isWalkableName)) return null;
  // a file sits in a project: a top-level path is always a project
  if (kind === 'item' && segments.length < 2) return null;
  return { kind, segments };
}
