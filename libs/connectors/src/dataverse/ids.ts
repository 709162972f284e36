/**
 * Resource ids at Dataverse. A dataset has its database id (digits); a file `<dataset id>:<file id>`, the
 * file's database id; a folder (a file's "File Path", `directoryLabel`) `<dataset id>:dir:<base64url of its
 * path>`. None can hold a dot, and each resource has one id: only canonical spellings decode.
 */

export type ParsedId =
  | { kind: 'dataset'; dataset: string }
  | { kind: 'file'; dataset: string; file: string }
  | { kind: 'folder'; dataset: string; path: string };

/** Database ids are positive 64-bit integers; leading zeros would give one resource several ids. */
const DATABASE_ID = /^[1-9][0-9]{0,18}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const FOLDER = 'dir';

/** What an id names, or null when no Dataverse resource can have it. */
export function parseId(id: string): ParsedId | null {
  const parts = id.split(':');
  const [dataset] = parts;
  if (!DATABASE_ID.test(dataset)) return null;
  if (parts.length === 1) return { kind: 'dataset', dataset };
  if (parts.length === 2)
    return DATABASE_ID.test(parts[1]) ? { kind: 'file', dataset, file: parts[1] } : null;
  if (parts.length !== 3 || parts[1] !== FOLDER || !BASE64URL.test(parts[2])) return null;
  const path = Buffer.from(parts[2], 'base64url').toString('utf8');
  // only the canonical encoding counts; this also refuses invalid UTF-8
  if (Buffer.from(path, 'utf8').toString('base64url') !== parts[2] || !isFolderPath(path)) return null;
  return { kind: 'folder', dataset, path };
}

/** A path of folders: no empty segment, `.` or `..`. */
function isFolderPath(path: string): boolean {
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export function fileId(datasetId: number | string, id: number | string): string {
  return `${datasetId}:${id}`;
}

export function folderId(datasetId: number | string, path: string): string {
  return `${datasetId}:${FOLDER}:${Buffer.from(path, 'utf8').toString('base64url')}`;
}
