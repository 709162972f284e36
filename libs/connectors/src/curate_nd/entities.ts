import { ConnectorError } from '../connector-error';
import { isRecord } from '../option-rules';

/**
 * The JSON CurateND answers, as ndlib/curate_nd builds it:
 * - `GET items` (app/presenters/api/items_search_presenter.rb): `{query, results, pagination}`, each result
 *   `{id, title, type, itemUrl}` plus the fields named in the query (`depositor`, `editor`, ...);
 * - `GET items/{id}` (app/presenters/api/show_item_presenter.rb): one object whose keys are the predicates of
 *   the object's metadata (`title`, `subject`, `dateSubmitted`, `modified`, `creator#author`, ...), each a
 *   string, or an array when the object has several values; a work adds `containedFiles` (one such object
 *   per file, with `downloadUrl`), a file has `label`, `downloadUrl`, `characterization` and `isPartOf`.
 * Their values are read defensively: the presenter passes the stored metadata through as it is.
 */
export type CurateNdRecord = Record<string, unknown> & { id: string };

export interface SearchResult {
  id: string;
  title?: unknown;
  type?: unknown;
  depositor?: unknown;
}

export interface Pagination {
  itemsPerPage?: unknown;
  totalResults?: unknown;
  lastPage?: unknown;
}

export interface SearchAnswer {
  results: SearchResult[];
  pagination: Pagination;
}

function malformed(what: string): ConnectorError {
  return new ConnectorError(502, `CurateND answered ${what} in a form this service does not know.`);
}

export function asSearchAnswer(body: unknown): SearchAnswer {
  if (!isRecord(body) || !Array.isArray(body.results) || !isRecord(body.pagination))
    throw malformed('a search');
  const results = body.results.filter(
    (result): result is SearchResult => isRecord(result) && typeof result.id === 'string',
  );
  return { results, pagination: body.pagination };
}

export function asRecord(body: unknown): CurateNdRecord {
  if (!isRecord(body) || typeof body.id !== 'string') throw malformed('an item');
  return body as CurateNdRecord;
}

/** Every string of a field that holds one string or an array of them. */
export function texts(value: unknown): string[] {
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  return values.filter((text): text is string => typeof text === 'string' && text.trim() !== '');
}

export function firstText(value: unknown): string | undefined {
  return texts(value)[0];
}

export function titleOf(record: { id: string; title?: unknown }): string {
  return firstText(record.title) ?? record.id;
}

/** A file is known by its file name (`label`); its `title` is a description that FITS or the depositor gave. */
export function fileTitle(record: CurateNdRecord): string {
  return firstText(record.label) ?? titleOf(record);
}

/**
 * Files are objects with a download link, works list theirs in `containedFiles`; the rest (people,
 * collections) are neither.
 */
export type RecordKind = 'item' | 'file';

export function recordKind(record: Record<string, unknown>): RecordKind | null {
  if (Array.isArray(record.containedFiles)) return 'item';
  if (typeof record.downloadUrl === 'string') return 'file';
  return null;
}

export function containedFiles(record: CurateNdRecord): CurateNdRecord[] {
  const files = Array.isArray(record.containedFiles) ? (record.containedFiles as unknown[]) : [];
  return files.filter((file): file is CurateNdRecord => isRecord(file) && typeof file.id === 'string');
}

/** Search results that are not works: a user's own profile (`Person`) and collections of works. */
const NOT_WORKS = new Set(['Person', 'LibraryCollection']);

export function isWork(result: SearchResult): boolean {
  return !NOT_WORKS.has(firstText(result.type) ?? '');
}

/**
 * An ISO 8601 UTC timestamp of one of CurateND's dates: dates are stored as xsd:date and answered as
 * `2018-12-10Z` (or without the zone); full timestamps are taken as they are.
 */
export function isoDate(value: unknown): string | undefined {
  const text = firstText(value)?.trim();
  if (text === undefined) return undefined;
  const day = /^(\d{4}-\d{2}-\d{2})(?:Z|[+-]00:00)?$/.exec(text);
  const time = Date.parse(day ? `${day[1]}T00:00:00Z` : text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
