import type { FakeAnswer, FakeRequest } from '../fake-server';
import { error } from './json';
import {
  latestVisible,
  type Dataset,
  type DataverseState,
  type Field,
  type User,
  type Version,
} from './model';

/** What every route of the fake is given: the request, its answer, and the user its token names (null: guest). */
export type Handler = (request: FakeRequest, answer: FakeAnswer, caller: User | null) => void | Promise<void>;
export type Router = (method: string, template: string, handler: Handler) => void;

/**
 * How Dataverse reads an uploaded zip to unpack it (CreateNewDataFilesCommand): `ZipFile` by its central
 * directory since IQSS/dataverse#10899, `ZipInputStream` from its start before. ZipInputStream.readLOC
 * (OpenJDK, java.util.zip) throws "only DEFLATED entries can have EXT descriptor" for a stored entry whose
 * local header says a data descriptor follows; the command then keeps the zip as it came.
 */
export type ZipReader = 'ZipFile' | 'ZipInputStream';

export interface FakeContext {
  state: DataverseState;
  /** direct upload (S3) for datasets: off, or on with this part size */
  directUpload(): { partSize: number } | null;
  /** whether downloads redirect to the store (S3's `download-redirect`) */
  redirectDownloads(): boolean;
  /** how long an ingest runs */
  ingestMs(): number;
  /** how an uploaded zip is read (DataverseFake.zipReader) */
  zipReader(): ZipReader;
  /** the store's presigned URLs for an upload of `size` bytes (FakeStore.presign) */
  presign(key: string, storageIdentifier: string, size: number, partSize: number, dataset: Dataset): object;
  presignDownload(file: number, original: boolean): string;
  /** the bytes a direct upload left in the store under a storage identifier */
  stored(storageIdentifier: string): Buffer | undefined;
  completeUpload(uploadId: string, etags: Record<string, string>): boolean;
  abortUpload(uploadId: string): void;
}

export function fail(answer: FakeAnswer, status: number, message: string): void {
  answer.json(status, error(message));
}

/**
 * A user's missing permission: Dataverse answers it with 401 (AbstractApiBean.execCommand turns a
 * PermissionException into UNAUTHORIZED), with the user's identifier.
 */
export function notPermitted(answer: FakeAnswer, caller: User | null): void {
  fail(
    answer,
    401,
    `User ${caller ? `@${caller.userName}` : ':guest'} is not permitted to perform requested action.`,
  );
}

/**
 * The dataset a path's `{id}` names: a database id, or `:persistentId` with the `persistentId` query parameter
 * (AbstractApiBean.findDatasetOrDie); null once 404 is answered.
 */
export function findDataset(
  context: FakeContext,
  request: FakeRequest,
  answer: FakeAnswer,
  id = request.params.id,
): Dataset | null {
  if (id === ':persistentId') {
    const pid = request.url.searchParams.get('persistentId') ?? '';
    const found = [...context.state.datasets.values()].find((dataset) => dataset.persistentId === pid);
    if (!found) fail(answer, 404, `Dataset with Persistent ID ${pid} not found.`);
    return found ?? null;
  }
  const found = /^\d+$/.test(id) ? context.state.datasets.get(Number(id)) : undefined;
  if (!found) fail(answer, 404, `Dataset with ID ${id} not found.`);
  return found ?? null;
}

export function isEditor(dataset: Dataset, caller: User | null): boolean {
  return caller !== null && dataset.editors.has(caller.id);
}

/**
 * The version a version specifier names (native-api.html#dataset-version-specifiers): `:latest` the draft for
 * those who may see it, else the latest published (deaccessioned only when asked); `:draft` only for those who
 * may see drafts (else 401); `:latest-published`, `x.y` and `x` the published one. Null once refused.
 */
export function versionFor(
  dataset: Dataset,
  specifier: string,
  caller: User | null,
  request: FakeRequest,
  answer: FakeAnswer,
): Version | null {
  const deaccessioned = request.url.searchParams.get('includeDeaccessioned') === 'true';
  const published =
    dataset.published?.state === 'DEACCESSIONED' && !deaccessioned ? undefined : dataset.published;
  let version: Version | undefined;
  if (specifier === ':draft') {
    if (dataset.draft && !isEditor(dataset, caller)) return (notPermitted(answer, caller), null);
    version = dataset.draft;
  } else if (specifier === ':latest') {
    const latest = latestVisible(dataset, caller);
    version = latest === dataset.draft ? latest : published;
  } else if (specifier === ':latest-published') {
    version = published;
  } else {
    const [major, minor = '0'] = specifier.split('.');
    version =
      published && String(published.versionNumber) === major && String(published.minorNumber) === minor
        ? published
        : undefined;
  }
  if (!version) fail(answer, 404, `Dataset version ${specifier} of dataset ${dataset.id} not found`);
  return version ?? null;
}

/**
 * Refuses an edit of a locked dataset (PermissionServiceBean): 403 with Dataverse's message, or, for an upload
 * (`upload`), AddReplaceFileHelper's 400, which is what the command's refusal becomes there. An Ingest lock
 * alone lets uploads and metadata edits through (checkUpdateDatasetVersionLock) but not deletions
 * (checkEditDatasetLock). True when refused.
 */
export function refusedForLock(
  dataset: Dataset,
  caller: User | null,
  answer: FakeAnswer,
  kind: 'update' | 'upload' | 'delete',
): boolean {
  const blocking = dataset.locks.filter((lock) => kind === 'delete' || lock.type !== 'Ingest');
  if (blocking.length === 0) return false;
  if (kind === 'upload') fail(answer, 400, 'Failed to add file to dataset.');
  else if (blocking.every((lock) => lock.type === 'InReview') && !isEditor(dataset, caller))
    fail(answer, 403, 'Dataset cannot be edited due to In Review dataset lock.');
  else fail(answer, 403, 'Dataset cannot be edited due to dataset lock.');
  return true;
}

/** How Dataverse prints each citation field it knows (citation.tsv: compound, vocabulary or primitive). */
const COMPOUND = new Set(['author', 'datasetContact', 'dsDescription', 'keyword']);
const VOCABULARY = new Set(['subject']);
const MULTIPLE = new Set([...COMPOUND, ...VOCABULARY]);

/** A field as sent, in the form Dataverse keeps and prints it (typeClass and multiple filled in). */
export function normalized(field: { typeName: string; value: unknown }): Field {
  const primitive = (name: string, value: unknown) => ({
    typeName: name,
    multiple: false,
    typeClass: 'primitive',
    value,
  });
  const value = COMPOUND.has(field.typeName)
    ? (field.value as Record<string, { value: unknown }>[]).map((entry) =>
        Object.fromEntries(Object.entries(entry).map(([name, sub]) => [name, primitive(name, sub.value)])),
      )
    : field.value;
  return {
    typeName: field.typeName,
    multiple: MULTIPLE.has(field.typeName),
    typeClass: COMPOUND.has(field.typeName)
      ? 'compound'
      : VOCABULARY.has(field.typeName)
        ? 'controlledVocabulary'
        : 'primitive',
    value,
  };
}

/** What a dataset lacks of the citation fields every installation requires (citation.tsv: required). */
export function missingRequired(fields: Field[]): string[] {
  const has = (name: string, sub?: string) => {
    const field = fields.find((candidate) => candidate.typeName === name);
    if (!field) return false;
    if (!sub)
      return Array.isArray(field.value)
        ? field.value.length > 0
        : typeof field.value === 'string' && field.value !== '';
    return (field.value as Record<string, { value?: unknown }>[]).some(
      (entry) => typeof entry[sub]?.value === 'string' && entry[sub].value !== '',
    );
  };
  return [
    ['title'],
    ['author', 'authorName'],
    ['datasetContact', 'datasetContactEmail'],
    ['dsDescription', 'dsDescriptionValue'],
    ['subject'],
  ]
    .filter(([name, sub]) => !has(name, sub))
    .map(([name, sub]) => sub ?? name);
}
