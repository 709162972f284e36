import type { FakeRequest } from '../fake-server';
import { depositionJson, fileJson, recordJson, type StoredDeposition, type ZenodoState } from './model';
import type { Reply } from './reply';
import { matcher, SORTS } from './search';

export interface Caller {
  /** the user a request's token names; null without a token Zenodo knows */
  owner: number | null;
}
export type ZenodoHandler = (request: FakeRequest, reply: Reply, caller: Caller) => void | Promise<void>;
export type Router = (method: string, template: string, handler: ZenodoHandler) => void;

export interface ZenodoContext {
  state: ZenodoState;
  /** the API's base URL, e.g. `http://127.0.0.1:40123/api` */
  api(): string;
}

const UPLOAD_TYPES = [
  'publication',
  'poster',
  'presentation',
  'dataset',
  'image',
  'video',
  'software',
  'lesson',
  'physicalobject',
  'other',
];
const MAX_SIZE = 100;
/** Elasticsearch's default index.max_result_window, past which Zenodo refuses a page. */
const MAX_RESULT_WINDOW = 10_000;

/** The quickstart's answer without a token (https://developers.zenodo.org/#quickstart-upload). */
export function unauthorized(reply: Reply): void {
  reply.error(
    401,
    'The server could not verify that you are authorized to access the URL requested. You either supplied the ' +
      "wrong credentials (e.g. a bad password), or your browser doesn't understand how to supply the credentials required.",
  );
}

/** The caller's deposition `id`, or null once the right refusal is answered (https://developers.zenodo.org/#http-status-codes). */
export function ownDeposition(
  context: ZenodoContext,
  id: string,
  reply: Reply,
  caller: Caller,
): StoredDeposition | null {
  if (caller.owner === null) return (unauthorized(reply), null);
  const deposition = /^\d+$/.test(id) ? context.state.depositions.get(Number(id)) : undefined;
  if (!deposition) return (reply.error(404, 'Deposition not found'), null);
  if (deposition.removed) return (reply.error(410, 'PID has been deleted.'), null);
  if (deposition.owner !== caller.owner)
    return (reply.error(403, 'You do not have permission to access this deposition.'), null);
  return deposition;
}

function positiveInteger(value: string | null, fallback: number): number | null {
  if (value === null) return fallback;
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : null;
}

/** GET /deposit/depositions (https://developers.zenodo.org/#list): a bare array, no total and no paging links. */
function listDepositions(context: ZenodoContext): ZenodoHandler {
  return (request, reply, caller) => {
    if (caller.owner === null) return unauthorized(reply);
    const query = request.url.searchParams;
    const page = positiveInteger(query.get('page'), 1);
    const size = positiveInteger(query.get('size'), 10);
    const sort = SORTS[query.get('sort') ?? 'mostrecent'];
    if (page === null || size === null || size > MAX_SIZE || !sort)
      return reply.error(400, 'Invalid query: page, size (at most 100) or sort.');
    if (page * size > MAX_RESULT_WINDOW)
      return reply.error(400, 'Too many results: page past the result window.');
    const status = query.get('status');
    const matches = matcher(query.get('q'));
    const found = [...context.state.depositions.values()]
      .filter((deposition) => deposition.owner === caller.owner && !deposition.removed)
      .filter((deposition) => status === null || deposition.submitted === (status === 'published'))
      .filter(matches)
      .sort(sort);
    reply.json(
      200,
      found
        .slice((page - 1) * size, page * size)
        .map((deposition) => depositionJson(context.api(), deposition)),
    );
  };
}

/** Validation of a deposition metadata resource, as far as the fake checks it (https://developers.zenodo.org/#representation). */
function metadataErrors(metadata: unknown): { field: string; message: string }[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    return [{ field: 'metadata', message: 'Not a valid object.' }];
  const fields = metadata as Record<string, unknown>;
  const errors: { field: string; message: string }[] = [];
  const uploadType = fields.upload_type;
  if (uploadType !== undefined && !(typeof uploadType === 'string' && UPLOAD_TYPES.includes(uploadType)))
    errors.push({ field: 'metadata.upload_type', message: 'Not a valid choice.' });
  if (fields.title !== undefined && typeof fields.title !== 'string')
    errors.push({ field: 'metadata.title', message: 'Not a valid string.' });
  if (
    fields.keywords !== undefined &&
    !(Array.isArray(fields.keywords) && fields.keywords.every((k) => typeof k === 'string'))
  )
    errors.push({ field: 'metadata.keywords', message: 'Not a valid list of strings.' });
  const creators = fields.creators;
  if (
    creators !== undefined &&
    !(Array.isArray(creators) && creators.every((c: { name?: unknown }) => typeof c?.name === 'string'))
  )
    errors.push({ field: 'metadata.creators', message: 'Name is required.' });
  return errors;
}

/** What a deposition lacks before Zenodo publishes it (https://developers.zenodo.org/#publish). */
function publishErrors(deposition: StoredDeposition): { field: string; message: string }[] {
  const required = ['title', 'upload_type', 'description', 'creators'];
  const errors = required
    .filter((field) => !deposition.metadata[field])
    .map((field) => ({ field: `metadata.${field}`, message: 'Missing data for required field.' }));
  if (deposition.files.length === 0)
    errors.push({ field: 'files', message: 'Minimum one file must be provided.' });
  return errors;
}

function isJson(request: FakeRequest): boolean {
  return /^application\/json\b/.test(String(request.headers['content-type'] ?? ''));
}

export function depositRoutes(route: Router, context: ZenodoContext): void {
  const { state } = context;
  route('GET', '/deposit/depositions', listDepositions(context));

  // https://developers.zenodo.org/#create: `{}` or `{"metadata": {...}}`, answered 201
  route('POST', '/deposit/depositions', async (request, reply, caller) => {
    if (caller.owner === null) return unauthorized(reply);
    if (!isJson(request)) return reply.error(415, 'Unsupported media type.');
    const body = await request.json<{ metadata?: unknown } | null>();
    const errors = body?.metadata === undefined ? [] : metadataErrors(body.metadata);
    if (errors.length > 0) return reply.error(400, 'Validation error', errors);
    const created = state.create(caller.owner, (body?.metadata as Record<string, unknown>) ?? {});
    reply.json(201, depositionJson(context.api(), created));
  });

  // https://developers.zenodo.org/#retrieve
  route('GET', '/deposit/depositions/{id}', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (deposition) reply.json(200, depositionJson(context.api(), deposition));
  });

  // https://developers.zenodo.org/#update: the metadata sent replaces the deposition's
  route('PUT', '/deposit/depositions/{id}', async (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (!deposition) return;
    if (!isJson(request)) return reply.error(415, 'Unsupported media type.');
    // a published deposition's metadata is edited only after the edit action (https://developers.zenodo.org/#edit)
    if (deposition.state === 'done') return reply.error(400, 'Deposition state does not allow for editing.');
    const body = await request.json<{ metadata?: unknown } | null>();
    const errors = metadataErrors(body?.metadata);
    if (errors.length > 0) return reply.error(400, 'Validation error', errors);
    deposition.metadata = body?.metadata as Record<string, unknown>;
    state.touch(deposition);
    reply.json(200, depositionJson(context.api(), deposition));
  });

  // https://developers.zenodo.org/#depositions (Delete): an unpublished one only, answered 204; a published
  // one is refused with 403; afterwards the deposition answers 410
  route('DELETE', '/deposit/depositions/{id}', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (!deposition) return;
    if (deposition.submitted) return reply.error(403, 'Deleting an already published deposition.');
    deposition.removed = true;
    reply.empty(204);
  });

  // https://developers.zenodo.org/#publish, answered 202
  route('POST', '/deposit/depositions/{id}/actions/publish', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (!deposition) return;
    const errors = publishErrors(deposition);
    if (errors.length > 0) return reply.error(400, 'Validation error', errors);
    deposition.submitted = true;
    deposition.state = 'done';
    state.touch(deposition);
    reply.json(202, depositionJson(context.api(), deposition));
  });
}

/** The deposition files resource (https://developers.zenodo.org/#deposition-files). */
export function depositionFileRoutes(route: Router, context: ZenodoContext): void {
  // https://developers.zenodo.org/#deposition-files (List)
  route('GET', '/deposit/depositions/{id}/files', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (deposition)
      reply.json(
        200,
        deposition.files.map((file) => fileJson(context.api(), deposition, file)),
      );
  });

  // https://developers.zenodo.org/#deposition-files (Retrieve)
  route('GET', '/deposit/depositions/{id}/files/{file_id}', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (!deposition) return;
    const file = deposition.files.find((candidate) => candidate.id === request.params.file_id);
    if (!file) return reply.error(404, 'File not found');
    reply.json(200, fileJson(context.api(), deposition, file));
  });

  // https://developers.zenodo.org/#deposition-files (Delete): of an unpublished deposition only, answered 204
  route('DELETE', '/deposit/depositions/{id}/files/{file_id}', (request, reply, caller) => {
    const deposition = ownDeposition(context, request.params.id, reply, caller);
    if (!deposition) return;
    if (deposition.submitted) return reply.error(403, 'Deleting an already published deposition.');
    const index = deposition.files.findIndex((candidate) => candidate.id === request.params.file_id);
    if (index < 0) return reply.error(404, 'File not found');
    deposition.files.splice(index, 1);
    context.state.touch(deposition);
    reply.empty(204);
  });
}

/** The records resource: published records, anyone's (https://developers.zenodo.org/#records). */
export function recordRoutes(route: Router, context: ZenodoContext): void {
  // https://developers.zenodo.org/#records, "Retrieve": no token needed; a deleted record answers 410 (the
  // docs' status codes, "Gone"); an unpublished deposition is no record, 404 (InvenioRDM serves drafts at
  // /records/{id}/draft to their owners only)
  route('GET', '/records/{id}', (request, reply) => {
    const deposition = /^\d+$/.test(request.params.id)
      ? context.state.depositions.get(Number(request.params.id))
      : undefined;
    if (!deposition?.submitted) return reply.error(404, 'The persistent identifier does not exist.');
    if (deposition.removed) return reply.error(410, 'The record has been deleted.');
    reply.json(200, recordJson(context.api(), deposition));
  });
}
