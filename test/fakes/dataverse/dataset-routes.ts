import { randomBytes } from 'node:crypto';
import {
  fail,
  findDataset,
  isEditor,
  missingRequired,
  normalized,
  notPermitted,
  refusedForLock,
  versionFor,
  type FakeContext,
  type Router,
} from './common';
import { fileMetadataJson, lockJson, ok, versionJson } from './json';
import { citation } from './model';
import { incomingFiles, readForm, store } from './uploads';

/** The routes below `/api/datasets` (https://guides.dataverse.org/en/latest/api/native-api.html#datasets). */
export function datasetRoutes(route: Router, context: FakeContext): void {
  const { state } = context;

  // Direct upload's multipart completion and abort (developers/s3-direct-upload-api.html; Datasets.completeMPUpload)
  route('PUT', '/datasets/mpupload', async (request, answer, caller) => {
    if (!caller) return notPermitted(answer, caller);
    const etags = await request.json<Record<string, string>>();
    const upload = request.url.searchParams.get('uploadid') ?? '';
    if (!context.completeUpload(upload, etags))
      return fail(answer, 500, 'Could not complete multipart upload');
    answer.json(200, ok({ message: 'Multipart Upload completed' }));
  });
  route('DELETE', '/datasets/mpupload', (request, answer, caller) => {
    if (!caller) return notPermitted(answer, caller);
    context.abortUpload(request.url.searchParams.get('uploadid') ?? '');
    answer.json(200, ok({ message: 'Multipart Upload aborted' }));
  });

  // #get-version-of-a-dataset, #get-json-representation-of-a-dataset (by persistent id too)
  route('GET', '/datasets/{id}/versions/{versionId}', (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    const version = dataset && versionFor(dataset, request.params.versionId, caller, request, answer);
    if (!dataset || !version) return;
    const files = request.url.searchParams.get('excludeFiles') !== 'true';
    const metadata = request.url.searchParams.get('excludeMetadataBlocks') !== 'true';
    answer.json(200, ok(versionJson(state, dataset, version, { files, metadata })));
  });

  // #list-files-in-a-dataset: paged by limit and offset, with the total; NameAZ by label unless asked
  route('GET', '/datasets/{id}/versions/{versionId}/files', (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    const version = dataset && versionFor(dataset, request.params.versionId, caller, request, answer);
    if (!dataset || !version) return;
    const query = request.url.searchParams;
    const order = query.get('orderCriteria') ?? 'NameAZ';
    if (!['NameAZ', 'NameZA', 'Newest', 'Oldest', 'Size', 'Type'].includes(order))
      return fail(answer, 400, `Invalid order criteria: ${order}`);
    const files = [...version.files].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    if (order === 'NameZA') files.reverse();
    const offset = Number(query.get('offset') ?? 0);
    const limit = query.has('limit') ? Number(query.get('limit')) : files.length;
    const page = files.slice(offset, offset + limit);
    answer.json(
      200,
      ok(
        page.map((entry) => fileMetadataJson(state, entry, version)),
        files.length,
      ),
    );
  });

  // #get-user-permissions-on-a-dataset
  route('GET', '/datasets/{id}/userPermissions', (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    const editor = isEditor(dataset, caller);
    answer.json(
      200,
      ok({
        canViewUnpublishedDataset: editor,
        canEditDataset: editor,
        canPublishDataset: editor,
        canManageDatasetPermissions: editor,
        canDeleteDatasetDraft: editor,
      }),
    );
  });

  // #manage-locks-on-a-specific-dataset
  route('GET', '/datasets/{id}/locks', (request, answer) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    const type = request.url.searchParams.get('type');
    const locks = dataset.locks.filter((lock) => type === null || lock.type === type);
    answer.json(200, ok(locks.map((lock) => lockJson(dataset, lock))));
  });

  // #edit-dataset-metadata: fields added, or replaced with replace=true; an empty value removes a field
  route('PUT', '/datasets/{id}/editMetadata', async (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    if (!isEditor(dataset, caller)) return notPermitted(answer, caller);
    if (refusedForLock(dataset, caller, answer, 'update')) return;
    const body = await request.json<{ fields?: { typeName: string; value: unknown }[] }>();
    if (!Array.isArray(body?.fields))
      return fail(answer, 400, 'Error parsing dataset update: fields expected');
    const replace = request.url.searchParams.get('replace') === 'true';
    const draft = state.draftOf(dataset);
    for (const field of body.fields.map(normalized)) {
      const present = citation(draft, field.typeName);
      const empty = field.value === '' || (Array.isArray(field.value) && field.value.length === 0);
      if (present && !replace && !field.multiple)
        return fail(
          answer,
          400,
          `You may not add data to a field that already has data and does not allow multiples. Use replace=true to replace existing data (${field.typeName})`,
        );
      draft.fields = draft.fields.filter((candidate) => candidate !== present);
      if (empty) continue;
      if (present && !replace) field.value = [...(present.value as unknown[]), ...(field.value as unknown[])];
      draft.fields.push(field);
    }
    const missing = missingRequired(draft.fields);
    if (missing.length > 0) return fail(answer, 400, `Validation Failed: ${missing.join(', ')} is required.`);
    draft.lastUpdateTime = state.now();
    answer.json(200, ok(versionJson(state, dataset, draft, { files: true })));
  });

  // #delete-unpublished-dataset (Datasets.deleteDataset): a dataset never published goes with its files
  route('DELETE', '/datasets/{id}', (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    // a published dataset has one version more than its draft
    if (dataset.published && !dataset.draft)
      return fail(answer, 401, 'Only superusers can delete published datasets');
    if (!isEditor(dataset, caller)) return notPermitted(answer, caller);
    if (refusedForLock(dataset, caller, answer, 'delete')) return;
    if (dataset.published) dataset.draft = undefined;
    else state.datasets.delete(dataset.id);
    for (const id of [...state.files.keys()]) if (!state.isHeld(id)) state.files.delete(id);
    answer.json(200, ok({ message: `Dataset ${dataset.id} deleted` }));
  });

  // developers/s3-direct-upload-api.html#requesting-direct-upload-of-a-datafile (Datasets.getMPUploadUrls)
  route('GET', '/datasets/{id}/uploadurls', (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    if (!isEditor(dataset, caller))
      return fail(answer, 403, 'You are not permitted to upload files to this dataset.');
    const direct = context.directUpload();
    if (!direct)
      return fail(answer, 404, `Direct upload not supported for files in this dataset: ${dataset.id}`);
    const size = Number(request.url.searchParams.get('size') ?? 0);
    const key = `${dataset.persistentId.slice(4)}/${Date.now().toString(16)}-${randomBytes(6).toString('hex')}`;
    const storageIdentifier = `s3://demo-dataverse-bucket:${key.slice(key.lastIndexOf('/') + 1)}`;
    answer.json(
      200,
      ok({
        ...context.presign(key, storageIdentifier, size, direct.partSize, dataset),
        partSize: direct.partSize,
        storageIdentifier,
      }),
    );
  });

  // #add-a-file-to-a-dataset (Datasets.addFileToDataset): the bytes, or a direct upload's jsonData
  route('POST', '/datasets/{id}/add', async (request, answer, caller) => {
    const dataset = findDataset(context, request, answer);
    if (!dataset) return;
    const form = await readForm(request, answer);
    if (!form) return;
    if (!isEditor(dataset, caller))
      return fail(answer, 403, 'You do not have permission to edit this dataset.');
    if (refusedForLock(dataset, caller, answer, 'upload')) return;
    const incoming = await incomingFiles(context, form, answer);
    if (incoming) store(context, dataset, caller!, incoming, form, answer);
  });
}
