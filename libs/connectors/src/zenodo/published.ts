import { isNotTheUsers, ownOrPublished, requireOwn } from '../connector-error';
import { isRecord } from '../option-rules';
import type { ZenodoApi } from './api';
import type { Deposition, DepositionFile, DepositionMetadata, ZenodoRecord } from './entities';

/**
 * Published records of other users. The deposit API answers only the user's own depositions (403 or 404 for
 * anyone else's); a published record is open to everyone at `GET /records/{id}`
 * (https://developers.zenodo.org/#records, "Retrieve"). The connector reads one there when the deposit API
 * refuses it, and shows it as the deposition it was published from, read-only.
 */

/** A deposition as the user reaches it: their own through the deposit API, or someone else's published record. */
export interface Readable {
  deposition: Deposition;
  /** whether it is the user's own deposition (false: a published record of someone else, read-only) */
  own: boolean;
}

/** The record's grouped fields and the prefix of the deposition's fields they stand for (legacyjson.py). */
const GROUPED_FIELDS: Record<string, string> = {
  journal: 'journal_',
  meeting: 'conference_',
  imprint: 'imprint_',
  part_of: 'partof_',
  thesis: 'thesis_',
};

/**
 * A record's metadata in the deposition's terms, as zenodo-rdm's legacy serializer words the same record
 * (schemas/legacyjson.py): `resource_type` {type, subtype} is `upload_type` and `<type>_type`, `license` {id}
 * the license id, and `journal`, `meeting`, `imprint`, `part_of`, `thesis` the fields named with their prefix.
 */
function depositionMetadata(record: Record<string, unknown>): DepositionMetadata {
  const metadata: DepositionMetadata = {};
  for (const [field, value] of Object.entries(record)) {
    const prefix = GROUPED_FIELDS[field];
    if (prefix !== undefined && isRecord(value)) {
      for (const [key, part] of Object.entries(value)) metadata[`${prefix}${key}`] = part;
    } else if (field === 'resource_type' && isRecord(value)) {
      if (typeof value.type === 'string') metadata.upload_type = value.type;
      if (typeof value.subtype === 'string') metadata[`${String(value.type)}_type`] = value.subtype;
    } else if (field === 'license' && isRecord(value)) {
      metadata.license = value.id;
    } else {
      metadata[field] = value;
    }
  }
  return metadata;
}

/** A published record as the deposition it was published from: files with their download links. */
export function depositionOfRecord(record: ZenodoRecord): Deposition {
  const owner = Number(record.owners?.[0]?.id);
  const metadata = depositionMetadata(record.metadata ?? {});
  return {
    id: record.id,
    created: record.created,
    modified: record.modified ?? record.updated ?? record.created,
    ...(Number.isSafeInteger(owner) ? { owner } : {}),
    state: 'done',
    submitted: true,
    title: record.title ?? (typeof metadata.title === 'string' ? metadata.title : undefined),
    metadata,
    files: (record.files ?? []).map((file) => ({
      id: file.id,
      filename: file.key,
      filesize: file.size,
      checksum: file.checksum,
      links: { download: file.links?.self },
    })),
    links: { html: record.links?.html },
  };
}

/**
 * The user's deposition `id`, or else the published record `id` of someone else. When neither is readable,
 * the deposit API's refusal stands (403: a deposition of someone else, unpublished; 404: none).
 */
export async function readDeposition(api: ZenodoApi, id: string, resourceId: string): Promise<Readable> {
  const read = await ownOrPublished(
    () => api.deposition(id, resourceId),
    () => api.record(id, resourceId),
  );
  return read.own
    ? { deposition: read.found, own: true }
    : { deposition: depositionOfRecord(read.found), own: false };
}

/** The user's deposition `id`, to change; a published record of someone else answers 403 saying so. */
export async function ownDeposition(api: ZenodoApi, id: string, resourceId: string): Promise<Deposition> {
  return requireOwn(await readDeposition(api, id, resourceId), notTheUsers(id)).deposition;
}

/** Why a published record of someone else cannot be changed. */
export function notTheUsers(id: string | number): string {
  return `Zenodo record ${id} is another user's published record: it can be read and downloaded here, not changed.`;
}

/** A file of the user's deposition, or of someone else's published record (then among the record's files). */
export async function readFile(
  api: ZenodoApi,
  depositionId: string,
  fileId: string,
  resourceId: string,
): Promise<DepositionFile> {
  try {
    return await api.file(depositionId, fileId, resourceId);
  } catch (error) {
    if (!isNotTheUsers(error)) throw error;
    const { deposition, own } = await readDeposition(api, depositionId, resourceId);
    const file = own ? undefined : deposition.files?.find((candidate) => candidate.id === fileId);
    if (!file) throw error;
    return file;
  }
}
