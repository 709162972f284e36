import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName, isoDate } from '../upstream-values';
import type { DataverseApi } from './api';
import {
  checksumOf,
  datasetTitle,
  depositedName,
  depositedSize,
  folderOf,
  isIngested,
  keywordsOf,
  stringValues,
  subfieldValues,
  type DatasetVersion,
  type FileMetadata,
} from './entities';
import { fileId, folderId, parseId } from './ids';
import type { DataverseSession } from './session';

/** How Dataverse's datasets, folders and files appear as resources. */

export const DATASET = 'dataset';

export function datasetSummary(datasetId: number | string, title: string): ResourceSummary {
  return { kind: 'container', kindName: DATASET, id: String(datasetId), container: null, title };
}

/** The resource holding what sits at `folder` ('' for the dataset's top): that folder, or the dataset. */
export function containerAt(datasetId: string, folder: string): string {
  return folder === '' ? datasetId : folderId(datasetId, folder);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function fileSummary(datasetId: string, metadata: FileMetadata): ResourceSummary {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileId(datasetId, metadata.dataFile.id),
    container: containerAt(datasetId, folderOf(metadata)),
    title: depositedName(metadata),
  };
}

function folderSummary(datasetId: string, path: string): ResourceSummary {
  return {
    kind: 'container',
    kindName: 'folder',
    id: folderId(datasetId, path),
    container: containerAt(datasetId, parentOf(path)),
    title: path.slice(path.lastIndexOf('/') + 1),
  };
}

/** The latest version of a dataset the user may see; 410 for a deaccessioned one. */
export async function readDataset(
  api: DataverseApi,
  datasetId: string,
  resourceId: string,
): Promise<DatasetVersion> {
  const version = await api.version(datasetId, resourceId);
  if (version.versionState === 'DEACCESSIONED') throw ConnectorError.gone();
  return version;
}

/** Every file of the dataset's latest version the user may see. */
export async function filesOf(
  api: DataverseApi,
  datasetId: string,
  resourceId: string,
): Promise<FileMetadata[]> {
  const files: FileMetadata[] = [];
  for await (const file of api.files(datasetId, resourceId)) files.push(file);
  return files;
}

/** What sits directly at `folder` ('' for the dataset's top): its files, then its folders, each by name. */
export function childrenAt(
  datasetId: string,
  files: readonly FileMetadata[],
  folder: string,
): ResourceSummary[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  const subfolders = new Set<string>();
  const here: FileMetadata[] = [];
  for (const file of files) {
    const at = folderOf(file);
    if (at === folder) here.push(file);
    else if (at.startsWith(prefix)) subfolders.add(prefix + at.slice(prefix.length).split('/')[0]);
  }
  return [
    ...here.map((file) => fileSummary(datasetId, file)).sort((a, b) => byName(a.title, b.title)),
    ...[...subfolders].sort(byName).map((path) => folderSummary(datasetId, path)),
  ];
}

/** Why the user may read the dataset but not change it, where Dataverse tells (#get-user-permissions-on-a-dataset). */
export async function readOnlyReason(api: DataverseApi, datasetId: string): Promise<string | undefined> {
  const permissions = await api.permissions(datasetId);
  return permissions?.canEditDataset === false
    ? `This user may read the Dataverse dataset ${datasetId} but not change it: only those with a role that edits it can.`
    : undefined;
}

function versionName(version: DatasetVersion): string {
  return version.versionState === 'DRAFT' || version.versionNumber === undefined
    ? 'DRAFT'
    : `${version.versionNumber}.${version.versionMinorNumber ?? 0}`;
}

async function datasetDetail(api: DataverseApi, datasetId: string, id: string): Promise<ResourceDetail> {
  const version = await readDataset(api, datasetId, id);
  const [files, readOnly] = await Promise.all([filesOf(api, datasetId, id), readOnlyReason(api, datasetId)]);
  const created = version.createTime ?? version.lastUpdateTime ?? '';
  return {
    kind: 'container',
    kindName: DATASET,
    id: datasetId,
    title: datasetTitle(version),
    dateCreated: isoDate(created),
    dateModified: isoDate(version.lastUpdateTime ?? created),
    hashes: { md5: null, sha256: null },
    extra: {
      persistentId: version.datasetPersistentId,
      version: versionName(version),
      versionState: version.versionState,
      authors: subfieldValues(version, 'author', 'authorName'),
      description: subfieldValues(version, 'dsDescription', 'dsDescriptionValue')[0] ?? '',
      subject: stringValues(version, 'subject'),
      keywords: keywordsOf(version),
    },
    children: childrenAt(datasetId, files, ''),
    readOnly,
  };
}

/** A file as deposited: an ingested tabular file's saved original, whose checksum Dataverse keeps. */
function fileDetail(datasetId: string, metadata: FileMetadata): ResourceDetail {
  const { dataFile } = metadata;
  const checksum = checksumOf(dataFile);
  const hash = (algorithm: string) => (checksum?.algorithm === algorithm ? checksum.value : null);
  const modified = dataFile.lastUpdateTime ?? dataFile.creationDate ?? '';
  const { container: _container, ...summary } = fileSummary(datasetId, metadata);
  return {
    ...summary,
    dateCreated: isoDate(dataFile.creationDate ?? modified),
    dateModified: isoDate(modified),
    hashes: { md5: hash('md5'), sha256: hash('sha256') },
    extra: {
      size: depositedSize(dataFile),
      checksum: dataFile.checksum ?? null,
      folder: folderOf(metadata),
      contentType: isIngested(dataFile) ? dataFile.originalFileFormat : dataFile.contentType,
      restricted: metadata.restricted ?? false,
      ...(isIngested(dataFile)
        ? { ingested: { archivalName: metadata.label, archivalSize: Number(dataFile.filesize) } }
        : {}),
      dataset: datasetId,
    },
    children: [],
  };
}

/** A file of the dataset an id names: 404 when the file belongs to another one. */
export async function readFile(
  api: DataverseApi,
  datasetId: string,
  id: string,
  resourceId: string,
): Promise<FileMetadata> {
  const metadata = await api.file(id, resourceId);
  if (String(metadata.datasetVersion?.datasetId ?? datasetId) !== datasetId)
    throw ConnectorError.unknownResource(resourceId);
  return metadata;
}

async function folderDetail(
  api: DataverseApi,
  datasetId: string,
  path: string,
  id: string,
): Promise<ResourceDetail> {
  const [version, files] = await Promise.all([readDataset(api, datasetId, id), filesOf(api, datasetId, id)]);
  const children = childrenAt(datasetId, files, path);
  if (children.length === 0) throw ConnectorError.unknownResource(id);
  const modified = isoDate(version.lastUpdateTime ?? version.createTime ?? '');
  const { container: _container, ...summary } = folderSummary(datasetId, path);
  return {
    ...summary,
    dateCreated: modified,
    dateModified: modified,
    hashes: { md5: null, sha256: null },
    extra: { dataset: datasetId, path },
    children,
  };
}

export async function getResource({ api }: DataverseSession, id: string): Promise<ResourceDetail> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  switch (parsed.kind) {
    case 'dataset':
      return datasetDetail(api, parsed.dataset, id);
    case 'file':
      return fileDetail(parsed.dataset, await readFile(api, parsed.dataset, parsed.file, id));
    case 'folder':
      return folderDetail(api, parsed.dataset, parsed.path, id);
  }
}
