import type { Dataset, DataFile, DataverseState, FileEntry, Lock, User, Version } from './model';

/**
 * The JSON the fake answers with, as Dataverse prints it (JsonPrinter in IQSS/dataverse, src/main/java/edu/
 * harvard/iq/dataverse/util/json/JsonPrinter.java; NullSafeJsonBuilder leaves out fields whose value is null)
 * and as the API Guide's examples show (https://guides.dataverse.org/en/latest/api/native-api.html). Dataverse
 * serves an OpenAPI document generated from its JAX-RS annotations, which describe parameters but no answer
 * bodies, so these printers follow the source rather than a schema.
 */

/** JsonPrinter.format: ISO 8601 in UTC, to the second. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Drops the fields whose value is undefined, as NullSafeJsonBuilder drops nulls. */
function present<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** AbstractApiBean.ok(...): `{"status": "OK", "data": ...}`, with `totalCount` for a paged listing. */
export function ok(data: unknown, totalCount?: number): object {
  return present({ status: 'OK', data, totalCount });
}

/** AbstractApiBean.error(...). */
export function error(message: string): object {
  return { status: 'ERROR', message };
}

/** JsonPrinter.json(AuthenticatedUser). */
export function userJson(user: User): object {
  return {
    id: user.id,
    identifier: `@${user.userName}`,
    displayName: `${user.firstName} ${user.lastName}`,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    superuser: false,
    deactivated: false,
    persistentUserId: user.userName,
    createdTime: '2024-01-15T09:30:00Z',
    authenticationProviderId: 'builtin',
  };
}

/** JsonPrinter.json(DataFile, FileMetadata, ...). */
export function dataFileJson(file: DataFile, entry: FileEntry, version: Version): object {
  const original = file.original;
  return present({
    id: file.id,
    persistentId: '',
    filename: entry.label,
    contentType: file.contentType,
    friendlyType: original ? 'Tab-Delimited' : 'Unknown',
    filesize: file.content.length,
    description: entry.description,
    storageIdentifier: file.storageIdentifier,
    originalFileFormat: original?.format,
    originalFormatLabel: original ? 'Comma Separated Values' : undefined,
    originalFileSize: original?.content.length,
    originalFileName: original?.name,
    UNF: original ? 'UNF:6:4oGsjXDrJ4dvnfnl3WK5ag==' : undefined,
    rootDataFileId: -1,
    md5: file.checksumType === 'MD5' ? file.checksum : undefined,
    checksum: { type: file.checksumType, value: file.checksum },
    tabularData: original !== undefined,
    creationDate: day(file.createDate),
    publicationDate: version.state === 'RELEASED' ? day(version.releaseTime!) : undefined,
    directoryLabel: entry.directoryLabel,
    lastUpdateTime: timestamp(version.lastUpdateTime),
    fileAccessRequest: false,
  });
}

/** JsonPrinter.json(FileMetadata). */
export function fileMetadataJson(state: DataverseState, entry: FileEntry, version: Version): object {
  return present({
    description: entry.description,
    label: entry.label,
    restricted: entry.restricted,
    directoryLabel: entry.directoryLabel,
    version: 1,
    datasetVersionId: version.id,
    dataFile: dataFileJson(state.files.get(entry.dataFileId)!, entry, version),
  });
}

/** JsonPrinter.json(DatasetVersion, ...): the version, its metadata blocks, and its files when asked. */
export function versionJson(
  state: DataverseState,
  dataset: Dataset,
  version: Version,
  options: { files: boolean; metadata?: boolean },
): object {
  const latest = dataset.draft ?? dataset.published!;
  return present({
    id: version.id,
    datasetId: dataset.id,
    datasetPersistentId: dataset.persistentId,
    datasetType: 'dataset',
    storageIdentifier: `file://${dataset.persistentId.slice(4)}`,
    versionNumber: version.versionNumber,
    internalVersionNumber: 1,
    versionMinorNumber: version.minorNumber,
    versionState: version.state,
    latestVersionPublishingState: latest.state,
    lastUpdateTime: timestamp(version.lastUpdateTime),
    releaseTime: version.releaseTime ? timestamp(version.releaseTime) : undefined,
    createTime: timestamp(version.createTime),
    publicationDate: dataset.published?.releaseTime ? day(dataset.published.releaseTime) : undefined,
    license: {
      name: 'CC0 1.0',
      uri: 'http://creativecommons.org/publicdomain/zero/1.0',
      iconUri: 'https://licensebuttons.net/p/zero/1.0/88x31.png',
    },
    fileAccessRequest: true,
    metadataBlocks:
      options.metadata === false
        ? undefined
        : { citation: { displayName: 'Citation Metadata', name: 'citation', fields: version.fields } },
    files: options.files ? version.files.map((entry) => fileMetadataJson(state, entry, version)) : undefined,
  });
}

/** JsonPrinter.json(DatasetLock). */
export function lockJson(dataset: Dataset, lock: Lock): object {
  return present({
    lockType: lock.type,
    date: lock.start.toString(),
    user: lock.user,
    dataset: dataset.persistentId,
    message: lock.type === 'Ingest' ? 'Ingest in progress' : undefined,
  });
}
