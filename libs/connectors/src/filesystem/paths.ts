import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ConnectorError } from '../connector-error';

/** Names starting with this hold the service's own metadata: never listed and never addressable by an id. */
const RESERVED_PREFIX = '.presqt';

export function isReserved(name: string): boolean {
  return name.startsWith(RESERVED_PREFIX);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** An id is the base64url of the path relative to the user's directory: one URL segment, no `.`. */
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

/** Maps a filesystem failure about resource `id` to what the API answers; other failures pass unchanged. */
export function toConnectorError(error: unknown, id: string): unknown {
  if (error instanceof ConnectorError) return error;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return ConnectorError.unknownResource(id);
    case 'EACCES':
    case 'EPERM':
      return ConnectorError.forbidden();
    default:
      return error;
  }
}

export interface Resolved {
  absolute: string;
  stats: Stats;
}

/**
 * Finds the resource at a decoded relative path inside `userDir` (itself a realpath). Every component is
 * lstat-ed so no symlink is ever followed; top-level resources must be directories.
 */
export async function resolveInside(userDir: string, relativePath: string, id: string): Promise<Resolved> {
  const segments = relativePath.split('/');
  let absolute = userDir;
  try {
    let stats = await lstat(userDir);
    for (const segment of segments) {
      if (!stats.isDirectory()) throw ConnectorError.unknownResource(id);
      absolute = join(absolute, segment);
      stats = await lstat(absolute);
    }
    const isResource = stats.isDirectory() || (stats.isFile() && segments.length > 1);
    // The walk saw no symlink; the realpath check guards against anything it could have missed.
    if (!isResource || !(await realpath(absolute)).startsWith(userDir + sep))
      throw ConnectorError.unknownResource(id);
    return { absolute, stats };
  } catch (error) {
    throw toConnectorError(error, id);
  }
}
