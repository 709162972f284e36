import { fail, isEditor, notPermitted, refusedForLock, type FakeContext, type Router } from './common';
import { fileMetadataJson, ok, versionJson } from './json';
import { latestVisible, type Dataset, type FileEntry, type User, type Version } from './model';
import { incomingFiles, readForm, sameContent, store } from './uploads';

/** The file a database id names, in the latest version of its dataset the caller may see. */
function visibleFile(
  context: FakeContext,
  id: string,
  caller: User | null,
): { dataset: Dataset; version: Version; entry: FileEntry } | 'unknown' | 'unseen' {
  if (!/^\d+$/.test(id) || !context.state.files.has(Number(id))) return 'unknown';
  for (const dataset of context.state.datasets.values()) {
    const version = latestVisible(dataset, caller);
    const entry = version?.files.find((file) => file.dataFileId === Number(id));
    if (version && entry) return { dataset, version, entry };
  }
  return 'unseen';
}

/** The routes below `/api/files` and the Data Access API's `/api/access/datafile`. */
export function fileRoutes(route: Router, context: FakeContext): void {
  const { state } = context;

  // native-api.html#get-fixity-algorithm: `ok(String)`, the legacy form puts the message in `data`
  route('GET', '/files/fixityAlgorithm', (_request, answer) => {
    answer.json(200, ok({ message: state.checksumType }));
  });

  // native-api.html#get-json-representation-of-a-file (Files.getFileData), the latest version the caller may see
  route('GET', '/files/{id}', (request, answer, caller) => {
    const found = visibleFile(context, request.params.id, caller);
    if (found === 'unknown') return fail(answer, 404, `File with ID ${request.params.id} not found.`);
    if (found === 'unseen')
      return fail(
        answer,
        404,
        `"File metadata for file with id ${request.params.id} in dataset version :latest not found"`,
      );
    const json = fileMetadataJson(state, found.entry, found.version);
    const withVersion = request.url.searchParams.get('returnDatasetVersion') === 'true';
    answer.json(
      200,
      ok(
        withVersion
          ? { ...json, datasetVersion: versionJson(state, found.dataset, found.version, { files: false }) }
          : json,
      ),
    );
  });

  // native-api.html#replacing-files: new bytes in the draft; folder and name from jsonData, not carried over
  route('POST', '/files/{id}/replace', async (request, answer, caller) => {
    const form = await readForm(request, answer);
    if (!form) return;
    const found = visibleFile(context, request.params.id, caller);
    if (typeof found === 'string') return fail(answer, 404, `File with ID ${request.params.id} not found.`);
    const { dataset } = found;
    if (!isEditor(dataset, caller))
      return fail(answer, 403, 'You do not have permission to edit this dataset.');
    if (refusedForLock(dataset, caller, answer, 'upload')) return;
    const incoming = await incomingFiles(context, form, answer);
    if (!incoming) return;
    if (incoming.length !== 1) return fail(answer, 400, 'You may only replace a file with one file.');
    const entry = state.draftOf(dataset).files.find((file) => file.dataFileId === found.entry.dataFileId)!;
    if (sameContent(context, entry, incoming[0].content))
      return fail(answer, 400, 'Error! You may not replace a file with a file that has duplicate content.');
    const old = state.files.get(entry.dataFileId)!;
    const oldType = old.original?.format ?? old.contentType;
    if (
      oldType !== incoming[0].contentType &&
      form.json.forceReplace !== true &&
      form.json.forceReplace !== 'true'
    )
      return fail(
        answer,
        400,
        `The original file (${oldType}) and replacement file (${incoming[0].contentType}) are different file types.`,
      );
    store(context, dataset, caller!, incoming, form, answer, entry);
  });

  // native-api.html#deleting-files (Files.deleteFileInDataset through UpdateDatasetVersionCommand)
  route('DELETE', '/files/{id}', (request, answer, caller) => {
    const found = visibleFile(context, request.params.id, caller);
    if (typeof found === 'string') return fail(answer, 404, `File with ID ${request.params.id} not found.`);
    const { dataset } = found;
    if (!isEditor(dataset, caller)) return notPermitted(answer, caller);
    if (refusedForLock(dataset, caller, answer, 'update')) return;
    const draft = state.draftOf(dataset);
    draft.files = draft.files.filter((file) => file.dataFileId !== found.entry.dataFileId);
    draft.lastUpdateTime = state.now();
    if (!state.isHeld(found.entry.dataFileId)) state.files.delete(found.entry.dataFileId);
    answer.json(200, ok({ message: `File ${request.params.id} deleted` }));
  });

  /*
   * dataaccess.html#basic-file-access: the bytes, a tabular file's saved original with `format=original`
   * (ignored for other files, Access.java #6972); a single Range honoured. A store that redirects downloads
   * answers 303 to a presigned URL of its own.
   */
  route('GET', '/access/datafile/{id}', async (request, answer, caller) => {
    const found = visibleFile(context, request.params.id, caller);
    if (found === 'unknown') return fail(answer, 404, `File with ID ${request.params.id} not found.`);
    if (found === 'unseen')
      return fail(
        answer,
        403,
        'Not authorized to access this object via this API endpoint. Please check your code for typos, or consult our API guide at http://guides.dataverse.org.',
      );
    const file = state.files.get(found.entry.dataFileId)!;
    const original = request.url.searchParams.get('format') === 'original' && file.original !== undefined;
    if (context.redirectDownloads())
      return answer.empty(303, { location: context.presignDownload(file.id, original) });
    const content = original ? file.original!.content : file.content;
    const name = original ? file.original!.name : found.entry.label;
    await answer.send(
      200,
      content,
      {
        'content-type': original ? file.original!.format : file.contentType,
        'content-disposition': `attachment; filename="${name}"`,
      },
      true,
    );
  });
}
