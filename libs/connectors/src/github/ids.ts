import { gitNameProblem } from '../name-rules';
/**
 * Resource ids: a repository is its numeric id (stable across renames and transfers); a folder or file is
 * `<repository id>:<base64url of its path in the repository>`. Neither ever holds a `.`, `/` or `%`, so an id
 * fits one URL segment and `{id}.zip` splits at the right dot.
 */

export interface ResourceAddress {
  repositoryId: string;
  /** names from the repository's root; empty for the repository itself */
  path: string[];
}

/** GitHub's repository ids are positive integers (kept below 2^53, so they survive JSON). */
const REPOSITORY_ID = /^[1-9][0-9]{0,15}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function resourceId(repositoryId: number | string, path: readonly string[] = []): string {
  const repository = String(repositoryId);
  return path.length === 0
    ? repository
    : `${repository}:${Buffer.from(path.join('/'), 'utf8').toString('base64url')}`;
}

/** What an id names, or null when no resource can have that id (so that it answers 404). */
export function parseResourceId(id: string): ResourceAddress | null {
  const separator = id.indexOf(':');
  const repositoryId = separator < 0 ? id : id.slice(0, separator);
  if (!REPOSITORY_ID.test(repositoryId) || !Number.isSafeInteger(Number(repositoryId))) return null;
  if (separator < 0) return { repositoryId, path: [] };
  const encoded = id.slice(separator + 1);
  if (!BASE64URL.test(encoded)) return null;
  const path = Buffer.from(encoded, 'base64url').toString('utf8').split('/');
  // only the canonical encoding counts, so that each resource has one id; this also refuses invalid UTF-8
  if (resourceId(repositoryId, path) !== id || path.some((name) => gitNameProblem(name) !== null))
    return null;
  return { repositoryId, path };
}
