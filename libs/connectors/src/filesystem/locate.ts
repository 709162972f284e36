import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ConnectorError } from '../connector-error';
import { decodeId } from './ids';
import type { FilesystemSession } from './session';

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

/** A resource of the user's, found on disk. */
export interface Located extends Resolved {
  /** its path inside the user's folder */
  relativePath: string;
}

/** The user's resource an id names; 404 for an id that names nothing the user may see. */
export async function locate({ userDir }: FilesystemSession, id: string): Promise<Located> {
  const relativePath = decodeId(id);
  if (relativePath === null) throw ConnectorError.unknownResource(id);
  return { relativePath, ...(await resolveInside(userDir, relativePath, id)) };
}
