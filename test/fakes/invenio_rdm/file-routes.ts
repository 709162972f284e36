import type { FakeAnswer } from '../fake-server';
import { fileJson, filesJson, storedFile, timestamp, type StoredRecord, type VersionState } from './model';
import { denied, error, reach, type InvenioContext, type Router } from './record-routes';

/**
 * The files of records and drafts (invenio-records-resources, resources/files/config.py: `list` "/files",
 * `item` "/files/<key>", `item-content` ".../content", `item-commit` ".../commit", below "/records/<id>" and
 * "/records/<id>/draft"; https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/, "Draft files"
 * and "Record files"). A draft takes a file in three steps: initialise its key, PUT its bytes, commit it.
 */

function filesUrl(context: InvenioContext, record: StoredRecord, draft: boolean): string {
  return `${context.api()}/records/${record.id}${draft ? '/draft' : ''}/files`;
}

/** The draft of `id` when the caller may change its files: an edit of a published version has them locked. */
function writableDraft(
  context: InvenioContext,
  id: string,
  answer: FakeAnswer,
  caller: Parameters<Parameters<Router>[2]>[2],
) {
  const record = reach(context, id, answer, caller, true);
  if (!record) return null;
  // RDM's permission policy refuses file changes in the edit draft of a published record (its files are locked)
  if (record.published) return (denied(answer), null);
  return { record, draft: record.draft! };
}

function fileOf(version: VersionState, key: string, answer: FakeAnswer) {
  const file = version.files.find((candidate) => candidate.key === key);
  if (!file) error(answer, 404, `File with key ${key} not found.`);
  return file ?? null;
}

async function sendContent(answer: FakeAnswer, version: VersionState, key: string): Promise<void> {
  const file = fileOf(version, key, answer);
  if (!file) return;
  if (file.status !== 'completed') return error(answer, 404, `File with key ${key} not committed.`);
  // send_file answers conditional requests and byte ranges (invenio-files-rest's storage send_file)
  await answer.send(
    200,
    file.content,
    { 'content-disposition': `attachment; filename=${encodeURIComponent(key)}` },
    true,
  );
}

export function fileRoutes(route: Router, context: InvenioContext): void {
  for (const draft of [true, false]) {
    const prefix = draft ? '/records/{id}/draft/files' : '/records/{id}/files';
    route('GET', prefix, (request, answer, caller) => {
      const record = reach(context, request.params.id, answer, caller, draft);
      if (!record) return;
      const version = draft ? record.draft! : record.published!;
      answer.json(200, filesJson(filesUrl(context, record, draft), version.files));
    });
    route('GET', `${prefix}/{key}/content`, async (request, answer, caller) => {
      const record = reach(context, request.params.id, answer, caller, draft);
      if (record) await sendContent(answer, draft ? record.draft! : record.published!, request.params.key);
    });
  }
  // "Start draft file upload(s)": a list of keys; each becomes a pending entry with its content and commit links
  route('POST', '/records/{id}/draft/files', async (request, answer, caller) => {
    const found = writableDraft(context, request.params.id, answer, caller);
    if (!found) return;
    const body = await request.json<{ key?: unknown }[]>().catch(() => null);
    if (!Array.isArray(body) || body.some((entry) => typeof entry?.key !== 'string' || entry.key === ''))
      return error(answer, 400, 'A validation error occurred.', {
        errors: [{ field: 'key', messages: ['Missing data for required field.'] }],
      });
    const keys = body.map((entry) => entry.key as string);
    const taken = keys.find((key) => found.draft.files.some((file) => file.key === key));
    if (taken) return error(answer, 400, `File with key ${taken} already exists.`);
    const created = keys.map((key) => storedFile(key, Buffer.alloc(0), 'pending'));
    found.draft.files.push(...created);
    const url = filesUrl(context, found.record, true);
    answer.json(201, {
      ...filesJson(url, found.draft.files),
      entries: created.map((file) => fileJson(url, file)),
    });
  });
  // "Upload a draft file's content": the bytes, application/octet-stream
  route('PUT', '/records/{id}/draft/files/{key}/content', async (request, answer, caller) => {
    const found = writableDraft(context, request.params.id, answer, caller);
    const file = found && fileOf(found.draft, request.params.key, answer);
    if (!found || !file) return;
    const length = request.headers['content-length'];
    const body = await request.body();
    if (length !== undefined && body.length !== Number(length))
      return error(answer, 400, 'The body does not have Content-Length bytes.');
    file.content = body;
    file.updated = timestamp();
    answer.json(200, fileJson(filesUrl(context, found.record, true), file));
  });
  // "Complete a draft file upload": the entry, now `completed` with its size and checksum
  route('POST', '/records/{id}/draft/files/{key}/commit', (request, answer, caller) => {
    const found = writableDraft(context, request.params.id, answer, caller);
    const file = found && fileOf(found.draft, request.params.key, answer);
    if (!found || !file) return;
    file.status = 'completed';
    context.state.touch(found.record);
    answer.json(200, fileJson(filesUrl(context, found.record, true), file));
  });
  // "Delete a draft file": 204
  route('DELETE', '/records/{id}/draft/files/{key}', (request, answer, caller) => {
    const found = writableDraft(context, request.params.id, answer, caller);
    const file = found && fileOf(found.draft, request.params.key, answer);
    if (!found || !file) return;
    found.draft.files.splice(found.draft.files.indexOf(file), 1);
    answer.empty(204);
  });
  // invenio-users-resources' user item (GET /users/<id>): the public profile, which the owner may always read
  route('GET', '/users/{id}', (request, answer) => {
    const user = [...context.state.users.values()].find(
      (candidate) => String(candidate.id) === request.params.id,
    );
    if (!user) return error(answer, 404, 'User not found.');
    answer.json(200, {
      id: String(user.id),
      username: user.username,
      profile: { full_name: user.fullName, affiliations: '' },
      links: { self: `${context.api()}/users/${user.id}` },
    });
  });
}
