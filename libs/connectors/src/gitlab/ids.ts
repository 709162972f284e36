/**
 * Resource ids. A project is its numeric GitLab id; a folder or file is `<project id>:<base64url of its path
 * in the repository>`. Both are safe in one URL segment and hold no dot (the API splits `{id}.zip` at the last
 * dot), and each resource has exactly one id: only canonical spellings decode.
 */

/** What an id names: a project (path '') or a path inside the project's repository. */
export interface ResourceRef {
  projectId: string;
  /** `/`-separated, without leading or trailing `/`; '' for the project itself */
  path: string;
}

// GitLab ids are positive integers; leading zeros would give one project several ids
const PROJECT_ID = /^[1-9][0-9]{0,15}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeId(ref: ResourceRef): string {
  return ref.path === ''
    ? ref.projectId
    : `${ref.projectId}:${Buffer.from(ref.path, 'utf8').toString('base64url')}`;
}

/** A path git can hold: no empty, `.` or `..` segment and no NUL. */
export function isRepositoryPath(path: string): boolean {
  return (
    !path.includes('\0') &&
    path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
  );
}

/** The resource an id names, or null when no resource can have that id. */
export function decodeId(id: string): ResourceRef | null {
  const colon = id.indexOf(':');
  const projectId = colon < 0 ? id : id.slice(0, colon);
  if (!PROJECT_ID.test(projectId) || !Number.isSafeInteger(Number(projectId))) return null;
  if (colon < 0) return { projectId, path: '' };
  const encoded = id.slice(colon + 1);
  if (!BASE64URL.test(encoded)) return null;
  const path = Buffer.from(encoded, 'base64url').toString('utf8');
  // only the canonical encoding counts; this also refuses invalid UTF-8
  if (Buffer.from(path, 'utf8').toString('base64url') !== encoded || !isRepositoryPath(path)) return null;
  return { projectId, path };
}

/** The last segment of a path. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The folder holding a path; '' at the top of the repository. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function joinPath(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('/');
}
