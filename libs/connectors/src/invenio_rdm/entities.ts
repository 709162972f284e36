import { byName } from '../upstream-values';

/**
 * The JSON an InvenioRDM instance answers with, as far as the connector reads it
 * (https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/; the links are invenio-rdm-records'
 * `links_item` and invenio-records-resources' file links), and the small readings of it the connector shares.
 */

/** A subject: free text (`subject` only) or from a vocabulary (`id`, with `subject` its label). */
export interface Subject {
  id?: string;
  subject?: string;
}

export interface RecordMetadata {
  title?: string;
  resource_type?: { id?: string };
  publication_date?: string;
  creators?: unknown[];
  subjects?: Subject[];
  [field: string]: unknown;
}

/** A record or a draft (`is_draft`). */
export interface InvenioRecord {
  id: string;
  created: string;
  updated: string;
  is_draft?: boolean;
  is_published?: boolean;
  /** `draft`, `new_version_draft`, `published`, ... */
  status?: string;
  metadata?: RecordMetadata;
  access?: unknown;
  files?: { enabled?: boolean };
  custom_fields?: unknown;
  pids?: unknown;
  parent?: { id?: string; access?: { owned_by?: { user?: string | number } } };
  links: {
    self?: string;
    files?: string;
    versions?: string;
    draft?: string;
    [name: string]: string | undefined;
  };
}

/** A file entry: its checksum `md5:<hex>` and size once committed (`status: completed`). */
export interface FileEntry {
  key: string;
  size?: number;
  checksum?: string;
  status?: string;
  links: { self?: string; content?: string; commit?: string };
}

export interface FileListing {
  entries: FileEntry[];
}

/** A page of search results (https://inveniordm.docs.cern.ch/reference/rest_api_requests/#search). */
export interface SearchPage<Hit> {
  hits: { hits: Hit[]; total: number | { value: number } };
  links?: { next?: string };
}

/** A user's public profile (invenio-users-resources, GET /users/<id>). */
export interface InvenioUser {
  id: string | number;
  username?: string | null;
  profile?: { full_name?: string };
}

/** The md5 of an InvenioRDM checksum (`md5:<hex>`), lower-case; null for another algorithm's or none. */
export function md5Of(checksum: string | undefined): string | null {
  const found = /^md5:([0-9a-f]{32})$/i.exec(checksum ?? '');
  return found ? found[1].toLowerCase() : null;
}

export function recordTitle(record: InvenioRecord): string {
  return record.metadata?.title || `Untitled record ${record.id}`;
}

/** The resource type (`dataset`, `software`, ...), or `record` before one is set. */
export function recordKind(record: InvenioRecord): string {
  return record.metadata?.resource_type?.id ?? 'record';
}

/** The owner's user id (RDM's parent access: `owned_by.user`), as text. */
export function ownerOf(record: InvenioRecord | undefined): string | undefined {
  const user = record?.parent?.access?.owned_by?.user;
  return user === undefined ? undefined : String(user);
}

/** The total of a search page: a number, or Elasticsearch's `{value}` on some versions. */
export function totalOf(page: SearchPage<unknown>): number {
  const total = page.hits.total;
  return typeof total === 'number' ? total : total.value;
}

export function byKey(a: FileEntry, b: FileEntry): number {
  return byName(a.key, b.key);
}

/** The free-text and vocabulary subjects as keywords: each one's text. */
export function subjectTexts(metadata: RecordMetadata | undefined): string[] {
  return (metadata?.subjects ?? [])
    .map((subject) => subject.subject ?? subject.id)
    .filter((text): text is string => typeof text === 'string');
}
