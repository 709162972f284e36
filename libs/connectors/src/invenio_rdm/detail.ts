import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { isoDate } from '../upstream-values';
import type { InvenioApi } from './api';
import { byKey, md5Of, recordKind, recordTitle, type FileEntry, type InvenioRecord } from './entities';
import { fileResourceId, parseId } from './ids';
import { notTheUsers, readRecord } from './records';
import type { InvenioSession } from './session';

export function recordSummary(record: InvenioRecord): ResourceSummary {
  return {
    kind: 'container',
    kindName: recordKind(record),
    id: record.id,
    container: null,
    title: recordTitle(record),
  };
}

function fileSummary(record: InvenioRecord, file: FileEntry): ResourceSummary {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(record.id, file.key),
    container: record.id,
    title: file.key,
  };
}

function recordDetail(record: InvenioRecord, files: FileEntry[], own: boolean): ResourceDetail {
  return {
    kind: 'container',
    kindName: recordKind(record),
    id: record.id,
    title: recordTitle(record),
    dateCreated: isoDate(record.created),
    dateModified: isoDate(record.updated),
    hashes: { md5: null, sha256: null },
    // the metadata as the instance keeps it (DataCite-based, https://inveniordm.docs.cern.ch/reference/metadata/)
    extra: {
      ...record.metadata,
      status: record.status,
      is_published: record.is_published,
      is_draft: record.is_draft,
    },
    children: [...files].sort(byKey).map((file) => fileSummary(record, file)),
    readOnly: own ? undefined : notTheUsers(record.id),
  };
}

/** A file has no dates at InvenioRDM's API level that the connector reads: it shows its record's. */
function fileDetail(record: InvenioRecord, file: FileEntry): ResourceDetail {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(record.id, file.key),
    title: file.key,
    dateCreated: isoDate(record.created),
    dateModified: isoDate(record.updated),
    hashes: { md5: md5Of(file.checksum), sha256: null },
    extra: { size: Number(file.size ?? 0), record: record.id },
    children: [],
  };
}

/**
 * The files of a record that have bytes: a draft may hold files initialised but never committed (a failed
 * upload's), which are neither shown nor walked.
 */
export async function committedFiles(api: InvenioApi, record: InvenioRecord): Promise<FileEntry[]> {
  const files = await api.files(record);
  return files.filter((file) => file.status === undefined || file.status === 'completed');
}

/** A record's file by key, among the files of the version the user reads. */
export async function recordFile(session: InvenioSession, recordId: string, key: string, id: string) {
  const read = await readRecord(session.api, recordId, id);
  const file = (await committedFiles(session.api, read.record)).find((entry) => entry.key === key);
  if (!file) throw ConnectorError.unknownResource(id);
  return { ...read, file };
}

export async function getResource(session: InvenioSession, id: string): Promise<ResourceDetail> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file') {
    const { record, file } = await recordFile(session, parsed.record, parsed.key, id);
    return fileDetail(record, file);
  }
  const { record, own } = await readRecord(session.api, parsed.record, id);
  return recordDetail(record, await committedFiles(session.api, record), own);
}
