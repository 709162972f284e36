import { isRecord } from '../option-rules';
import { byName } from '../upstream-values';

/**
 * The JSON of Dataverse's native API that the connector reads, as the API Guide shows it
 * (https://guides.dataverse.org/en/latest/api/native-api.html) and as Dataverse prints it (JsonPrinter in
 * IQSS/dataverse, src/main/java/edu/harvard/iq/dataverse/util/json/JsonPrinter.java), and small readers of it.
 * Every answer is `{"status": "OK", "data": ...}`; an error is `{"status": "ERROR", "message": ...}`.
 */

export interface Answer<T> {
  status: string;
  data: T;
  /** a message beside the data (the legacy `ok(String)` puts it in `data.message` instead) */
  message?: string;
  /** listings that page (`/versions/{v}/files`) tell the total */
  totalCount?: number;
}

/** `GET /api/users/:me` (JsonPrinter.json(AuthenticatedUser)). */
export interface DataverseUser {
  id: number;
  /** `@` and the user name */
  identifier: string;
  displayName?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  affiliation?: string;
}

/** A file's checksum: its type is the installation's (`MD5`, `SHA-1`, `SHA-256`, `SHA-512`) when it was stored. */
export interface Checksum {
  type: string;
  value: string;
}

/** JsonPrinter.json(DataFile, FileMetadata, ...). */
export interface DataFile {
  id: number;
  filename?: string;
  contentType?: string;
  /** for an ingested tabular file, the size of the archival (tab-separated) form Dataverse serves by default */
  filesize: number;
  checksum?: Checksum;
  /** the legacy field, present when the checksum is an MD5 */
  md5?: string;
  /** the file was ingested as tabular data: Dataverse keeps the upload as the "saved original" */
  tabularData?: boolean;
  originalFileFormat?: string;
  originalFileSize?: number;
  originalFileName?: string;
  /** `yyyy-MM-dd` */
  creationDate?: string;
  /** the version's last update, ISO 8601 */
  lastUpdateTime?: string;
  description?: string;
}

/** A file as one version of a dataset holds it (JsonPrinter.json(FileMetadata)). */
export interface FileMetadata {
  /** the file's name; an ingested tabular file's ends in `.tab` */
  label: string;
  /** the file's folder ("File Path"), `/`-separated, absent at the top */
  directoryLabel?: string;
  restricted?: boolean;
  datasetVersionId?: number;
  dataFile: DataFile;
  /** with `returnDatasetVersion=true` */
  datasetVersion?: DatasetVersion;
}

/** A metadata field (JsonPrinter's DatasetFieldsToJson): a value, a list of them, or compound objects. */
export interface MetadataField {
  typeName: string;
  multiple?: boolean;
  typeClass?: string;
  value: unknown;
}

export interface MetadataBlock {
  displayName?: string;
  name?: string;
  fields: MetadataField[];
}

/** A dataset version (JsonPrinter.json(DatasetVersion)). */
export interface DatasetVersion {
  id: number;
  datasetId: number;
  datasetPersistentId?: string;
  versionNumber?: number;
  versionMinorNumber?: number;
  /** `DRAFT`, `RELEASED`, `DEACCESSIONED` (or `ARCHIVED`) */
  versionState: string;
  latestVersionPublishingState?: string;
  lastUpdateTime?: string;
  createTime?: string;
  releaseTime?: string;
  metadataBlocks?: Record<string, MetadataBlock>;
}

/** `GET /api/datasets/{id}/userPermissions`. */
export interface DatasetPermissions {
  canViewUnpublishedDataset?: boolean;
  canEditDataset?: boolean;
  canDeleteDatasetDraft?: boolean;
}

/** A dataset lock (JsonPrinter.json(DatasetLock)). */
export interface DatasetLock {
  lockType: string;
  date?: string;
  user?: string;
  dataset?: string;
  message?: string;
}

/** A card of `GET /api/mydata/retrieve` (SolrSearchResult.getJsonForMyData). */
export interface MyDataCard {
  /** the dataset's database id */
  entity_id: number;
  name: string;
  type: string;
  global_id?: string;
  is_draft_state?: boolean;
  is_published?: boolean;
}

/**
 * `GET /api/mydata/retrieve` answers in its own shape (DataRetrieverAPI): `success`, and `data` with the cards
 * (`items`) and `total_count`; a failure is `success: false` with `error_message`, still with status 200.
 */
export interface MyDataAnswer {
  success: boolean;
  error_message?: string;
  message?: string;
  data?: { items?: MyDataCard[]; total_count?: number };
}

/**
 * `GET /api/datasets/{id}/uploadurls` (https://guides.dataverse.org/en/latest/developers/s3-direct-upload-api.html):
 * one presigned `url`, or `urls` of the parts with the `complete` and `abort` calls of a multipart upload.
 */
export interface UploadUrls {
  url?: string;
  urls?: Record<string, string>;
  partSize: number;
  storageIdentifier: string;
  complete?: string;
  abort?: string;
}

/** The answer to adding or replacing a file (AddReplaceFileHelper: JsonPrinter.jsonDataFileList). */
export interface AddedFiles {
  files: FileMetadata[];
}

/** Dataverse's checksum types (DataFile.ChecksumType) by the names the service's fixity code gives them. */
export const CHECKSUM_ALGORITHMS: Readonly<Record<string, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-512': 'sha512',
};

/** A file's checksum as an algorithm of the service's fixity code and lower-case hex; null without one. */
export function checksumOf(file: DataFile): { algorithm: string; value: string } | null {
  const algorithm = file.checksum ? CHECKSUM_ALGORITHMS[file.checksum.type] : undefined;
  if (algorithm && file.checksum?.value) return { algorithm, value: file.checksum.value.toLowerCase() };
  return file.md5 ? { algorithm: 'md5', value: file.md5.toLowerCase() } : null;
}

/**
 * Whether Dataverse ingested the file as tabular data: it then serves an archival tab-separated form by
 * default, named `.tab`, and keeps what was uploaded as the "saved original" (IngestServiceBean in
 * IQSS/dataverse): its name, size and format are the `original*` fields, and the checksum is still that of
 * the upload.
 */
export function isIngested(file: DataFile): boolean {
  return file.tabularData === true && file.originalFileFormat !== undefined;
}

/** The name the file was deposited under: an ingested file's saved original's, else its label. */
export function depositedName(metadata: FileMetadata): string {
  const { dataFile } = metadata;
  if (isIngested(dataFile) && dataFile.originalFileName) return dataFile.originalFileName;
  return metadata.label;
}

/** The size of what was deposited: an ingested file's saved original's, else the file's. */
export function depositedSize(file: DataFile): number {
  return isIngested(file) && file.originalFileSize !== undefined
    ? Number(file.originalFileSize)
    : Number(file.filesize);
}

/** A file's folder inside its dataset, `/`-separated without leading or trailing `/`; '' at the top. */
export function folderOf(metadata: FileMetadata): string {
  return (metadata.directoryLabel ?? '').replace(/^\/+|\/+$/g, '');
}

/** A file's path inside its dataset, as deposited. */
export function pathOf(metadata: FileMetadata): string {
  const folder = folderOf(metadata);
  return folder === '' ? depositedName(metadata) : `${folder}/${depositedName(metadata)}`;
}

export function byPath(a: FileMetadata, b: FileMetadata): number {
  return byName(pathOf(a), pathOf(b));
}

/** A field of the version's citation block. */
export function citationField(version: DatasetVersion, typeName: string): MetadataField | undefined {
  return version.metadataBlocks?.citation?.fields.find((field) => field.typeName === typeName);
}

/** The dataset's title (the citation block's `title`). */
export function datasetTitle(version: DatasetVersion): string {
  const value = citationField(version, 'title')?.value;
  return typeof value === 'string' && value.trim() !== '' ? value : `Dataset ${version.datasetId}`;
}

/** The values of a subfield of a compound field, e.g. each `keywordValue` of `keyword`. */
export function subfieldValues(version: DatasetVersion, typeName: string, subfield: string): string[] {
  const value = citationField(version, typeName)?.value;
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) => {
    const part = isRecord(entry) ? entry[subfield] : undefined;
    return isRecord(part) && typeof part.value === 'string' ? [part.value] : [];
  });
}

/** The values of a field holding strings (`subject`). */
export function stringValues(version: DatasetVersion, typeName: string): string[] {
  const value = citationField(version, typeName)?.value;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The dataset's keywords: the `keywordValue` of each `keyword` of its citation block. */
export function keywordsOf(version: DatasetVersion): string[] {
  return subfieldValues(version, 'keyword', 'keywordValue');
}

/** How the user's account names them as an author: `Last, First`, as Dataverse's own citations do. */
export function authorName(user: DataverseUser): string {
  if (user.lastName && user.firstName) return `${user.lastName}, ${user.firstName}`;
  return user.displayName || user.identifier;
}
