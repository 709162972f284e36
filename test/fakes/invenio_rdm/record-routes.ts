import type { FakeAnswer, FakeRequest } from '../fake-server';
import { filesJson, recordJson, storedFile, type InvenioState, type StoredRecord, type User } from './model';

export type InvenioHandler = (
  request: FakeRequest,
  answer: FakeAnswer,
  caller: User | null,
) => void | Promise<void>;
export type Router = (method: string, template: string, handler: InvenioHandler) => void;

export interface InvenioContext {
  state: InvenioState;
  /** the API's base URL, e.g. `http://127.0.0.1:4000/api` */
  api(): string;
}

/**
 * InvenioRDM's error body: flask-resources' HTTPJSONException, `{"status": <code>, "message": ...}`, with the
 * messages of invenio-records-resources' and invenio-rdm-records' error handlers (resources/errors.py:
 * PermissionDeniedError -> 403 "Permission denied.", PIDDoesNotExistError -> 404, a deleted record -> 410
 * "Record deleted").
 */
export function error(
  answer: FakeAnswer,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  answer.json(status, { status, message, ...extra });
}

/**
 * Anonymous callers (no token, or one the instance does not know: invenio-oauth2server leaves such a request
 * unauthenticated) are refused by the permission policy, which answers 403, not 401.
 */
export const denied = (answer: FakeAnswer) => error(answer, 403, 'Permission denied.');
const notFound = (answer: FakeAnswer) => error(answer, 404, 'The persistent identifier does not exist.');

/**
 * The record of `id` as a caller may reach it: a deleted one is 410 with its tombstone, an unknown one 404;
 * `draft` wants its draft, which only its owner may read (403 for anyone else, 404 when it has none).
 */
export function reach(
  context: InvenioContext,
  id: string,
  answer: FakeAnswer,
  caller: User | null,
  draft: boolean,
): StoredRecord | null {
  const record = context.state.records.get(id);
  if (!record) return (notFound(answer), null);
  if (record.deleted)
    return (error(answer, 410, 'Record deleted', { tombstone: { is_visible: true } }), null);
  if (draft) {
    if (!caller || caller.id !== record.owner) return (denied(answer), null);
    if (!record.draft) return (notFound(answer), null);
  } else if (!record.published) return (notFound(answer), null);
  return record;
}

/** The phrase of a quoted Lucene value, unescaped. */
function phrase(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(.)/g, '$1').toLowerCase();
}

function subjects(metadata: Record<string, unknown>): string[] {
  const list = Array.isArray(metadata.subjects) ? (metadata.subjects as { subject?: string }[]) : [];
  return list.map((entry) => String(entry.subject ?? '').toLowerCase());
}

function creatorNames(metadata: Record<string, unknown>): string[] {
  const list = Array.isArray(metadata.creators)
    ? (metadata.creators as { person_or_org?: Record<string, string> }[])
    : [];
  return list.map(({ person_or_org: person = {} }) =>
    (person.name ?? [person.given_name, person.family_name].filter(Boolean).join(' ')).toLowerCase(),
  );
}

/**
 * The part of Elasticsearch's query string the connector sends (https://inveniordm.docs.cern.ch/reference/
 * rest_api_requests/ "Search", the `q` parameter): a quoted phrase alone, or after `metadata.title:`,
 * `metadata.subjects.subject:`, `metadata.creators.person_or_org.name:` or `id:`. Anything else is a 400.
 */
function matcher(q: string): ((record: StoredRecord, metadata: Record<string, unknown>) => boolean) | null {
  const found = /^(?:([\w.]+):)?("(?:[^"\\]|\\.)*")$/.exec(q.trim());
  if (!found) return null;
  const value = phrase(found[2]);
  const title = (metadata: Record<string, unknown>) =>
    (typeof metadata.title === 'string' ? metadata.title : '').toLowerCase();
  switch (found[1]) {
    case undefined:
      return (_record, metadata) =>
        title(metadata).includes(value) || subjects(metadata).some((subject) => subject.includes(value));
    case 'metadata.title':
      return (_record, metadata) => title(metadata).includes(value);
    case 'metadata.subjects.subject':
      return (_record, metadata) => subjects(metadata).includes(value);
    case 'metadata.creators.person_or_org.name':
      return (_record, metadata) => creatorNames(metadata).some((name) => name.includes(value));
    case 'id':
      return (record) => record.id === value;
    default:
      return null;
  }
}

/**
 * GET /user/records: the caller's records and drafts, the latest version of each, draft first
 * (invenio-drafts-resources, resources/records/config.py route `user-prefix` "/user" + ""; the service's
 * search_drafts, sorted by RDM_SORT_OPTIONS' `newest`: created, newest first). The answer is
 * `{hits: {hits, total}, links: {self, next, prev}, sortBy}` (https://inveniordm.docs.cern.ch/reference/
 * rest_api_drafts_records/#search-user-records; pagination links from pagination_endpoint_links).
 */
function searchUserRecords(context: InvenioContext): InvenioHandler {
  return (request, answer, caller) => {
    if (!caller) return denied(answer);
    const params = request.url.searchParams;
    const page = Number(params.get('page') ?? 1);
    const size = Number(params.get('size') ?? 10);
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1)
      return error(answer, 400, 'Invalid querystring parameters.');
    const q = params.get('q') ?? '';
    const match = q.trim() === '' ? () => true : matcher(q);
    if (!match) return error(answer, 400, 'Invalid querystring parameters.');
    const found = [...context.state.records.values()]
      .filter((record) => record.owner === caller.id && !record.deleted && context.state.isLatest(record))
      .filter((record) => match(record, (record.draft ?? record.published)!.metadata))
      .sort((a, b) => b.created.localeCompare(a.created));
    const hits = found
      .slice((page - 1) * size, page * size)
      .map((record) => recordJson(context.api(), record, record.draft !== null));
    const link = (to: number) =>
      `${context.api()}/user/records?page=${to}&q=${encodeURIComponent(q)}&size=${size}&sort=newest`;
    answer.json(200, {
      hits: { hits, total: found.length },
      links: {
        self: link(page),
        ...(page > 1 ? { prev: link(page - 1) } : {}),
        ...(page * size < found.length ? { next: link(page + 1) } : {}),
      },
      sortBy: 'newest',
    });
  };
}

/** The metadata of a draft body, or a 400 naming the problem (the draft schema's validation error). */
function metadataOf(body: unknown, answer: FakeAnswer): Record<string, unknown> | null {
  const metadata = (body as { metadata?: unknown } | null)?.metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    error(answer, 400, 'A validation error occurred.', {
      errors: [{ field: 'metadata', messages: ['Not a valid mapping type.'] }],
    });
    return null;
  }
  return metadata as Record<string, unknown>;
}

export function recordRoutes(route: Router, context: InvenioContext): void {
  const { state } = context;
  route('GET', '/user/records', searchUserRecords(context));
  // https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/#create-a-draft-record: 201 with the draft
  route('POST', '/records', async (request, answer, caller) => {
    if (!caller) return denied(answer);
    const metadata = metadataOf(await request.json().catch(() => null), answer);
    if (!metadata) return;
    answer.json(201, recordJson(context.api(), state.create(caller.id, metadata), true));
  });
  // #get-a-published-record: anyone may read a public published record
  route('GET', '/records/{id}', (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, false);
    if (record) answer.json(200, recordJson(context.api(), record, false));
  });
  // #get-a-draft-record
  route('GET', '/records/{id}/draft', (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, true);
    if (record) answer.json(200, recordJson(context.api(), record, true));
  });
  // #update-a-draft-record: the whole draft is sent; its metadata replaces the draft's
  route('PUT', '/records/{id}/draft', async (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, true);
    if (!record) return;
    const metadata = metadataOf(await request.json().catch(() => null), answer);
    if (!metadata) return;
    record.draft!.metadata = metadata;
    state.touch(record);
    answer.json(200, recordJson(context.api(), record, true));
  });
  // #deletediscard-a-draft-record: a new record goes whole; an edit draft goes, the published version stays
  route('DELETE', '/records/{id}/draft', (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, true);
    if (!record) return;
    if (record.published) record.draft = null;
    else state.records.delete(record.id);
    answer.empty(204);
  });
  // #edit-a-published-record-create-a-draft-record-from-a-published-record: its files stay locked in the edit
  route('POST', '/records/{id}/draft', (request, answer, caller) => {
    const record = state.records.get(request.params.id);
    if (!record?.published) return notFound(answer);
    if (!caller || caller.id !== record.owner) return denied(answer);
    record.draft ??= {
      metadata: structuredClone(record.published.metadata),
      files: [...record.published.files],
    };
    answer.json(201, recordJson(context.api(), record, true));
  });
  // #create-a-new-version: a new record id with the metadata of the latest; files come by files-import
  route('POST', '/records/{id}/versions', (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, false);
    if (!record) return;
    if (!caller || caller.id !== record.owner) return denied(answer);
    // a new version's draft that exists already is answered again (invenio-drafts-resources, service.py new_version)
    const next = [...state.records.values()].find(
      (other) =>
        other.parent === record.parent &&
        other.published === null &&
        other.versionIndex > record.versionIndex,
    );
    if (next) return answer.json(201, recordJson(context.api(), next, true));
    const { publication_date: _date, version: _version, ...metadata } = record.published!.metadata;
    answer.json(
      201,
      recordJson(context.api(), state.create(caller.id, structuredClone(metadata), record), true),
    );
  });
  // invenio-drafts-resources route `item-files-import`: the previous version's files into the new draft
  route('POST', '/records/{id}/draft/actions/files-import', (request, answer, caller) => {
    const record = reach(context, request.params.id, answer, caller, true);
    if (!record) return;
    const previous = [...state.records.values()].find(
      (other) => other.parent === record.parent && other.versionIndex === record.versionIndex - 1,
    );
    if (!previous?.published)
      return error(answer, 400, 'No published previous version to import files from.');
    record.draft!.files = previous.published.files.map((file) => storedFile(file.key, file.content));
    answer.json(201, filesJson(`${context.api()}/records/${record.id}/draft/files`, record.draft!.files));
  });
}
