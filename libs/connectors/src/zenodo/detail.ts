import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { isoDate } from '../upstream-values';
import {
  byFilename,
  depositionKind,
  depositionTitle,
  md5Of,
  type Deposition,
  type DepositionFile,
  type DepositionMetadata,
} from './entities';
import { fileResourceId, parseId } from './ids';
import { notTheUsers, readDeposition, readFile } from './published';
import type { ZenodoSession } from './session';

/**
 * The fields of a deposition's metadata that Zenodo documents (https://developers.zenodo.org/#representation,
 * "Deposit metadata"), but for its DOI fields (`doi`, `prereserve_doi`), which say nothing about the resource
 * itself. Zenodo answers others too (zenodo-rdm's legacy serializer adds `custom`, and a record its own
 * groupings): those are not shown, so that a detail's `extra` is the same set of fields wherever it comes from.
 */
const DOCUMENTED_METADATA = [
  'upload_type',
  'publication_type',
  'image_type',
  'publication_date',
  'title',
  'creators',
  'description',
  'access_right',
  'license',
  'embargo_date',
  'access_conditions',
  'keywords',
  'notes',
  'related_identifiers',
  'contributors',
  'references',
  'communities',
  'grants',
  'journal_title',
  'journal_volume',
  'journal_issue',
  'journal_pages',
  'conference_title',
  'conference_acronym',
  'conference_dates',
  'conference_place',
  'conference_url',
  'conference_session',
  'conference_session_part',
  'imprint_publisher',
  'imprint_isbn',
  'imprint_place',
  'partof_title',
  'partof_pages',
  'thesis_supervisors',
  'thesis_university',
  'subjects',
  'version',
  'language',
  'locations',
  'dates',
  'method',
] as const;

export function depositionSummary(deposition: Deposition): ResourceSummary {
  return {
    kind: 'container',
    kindName: depositionKind(deposition),
    id: String(deposition.id),
    container: null,
    title: depositionTitle(deposition),
  };
}

export function fileSummary(deposition: Deposition, file: DepositionFile): ResourceSummary {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(deposition.id, file.id),
    container: String(deposition.id),
    title: file.filename,
  };
}

function documentedMetadata(metadata: DepositionMetadata = {}): Record<string, unknown> {
  return Object.fromEntries(
    DOCUMENTED_METADATA.filter((field) => metadata[field] !== undefined).map((field) => [
      field,
      metadata[field],
    ]),
  );
}

function depositionDetail({ deposition, own }: { deposition: Deposition; own: boolean }): ResourceDetail {
  const files = [...(deposition.files ?? [])].sort(byFilename);
  return {
    kind: 'container',
    kindName: depositionKind(deposition),
    id: String(deposition.id),
    title: depositionTitle(deposition),
    dateCreated: isoDate(deposition.created),
    dateModified: isoDate(deposition.modified),
    hashes: { md5: null, sha256: null },
    extra: {
      ...documentedMetadata(deposition.metadata),
      state: deposition.state,
      submitted: deposition.submitted,
    },
    children: files.map((file) => fileSummary(deposition, file)),
    readOnly: own ? undefined : notTheUsers(deposition.id),
  };
}

/** A file has no dates of its own at Zenodo: it shows its deposition's. */
function fileDetail(deposition: Deposition, file: DepositionFile): ResourceDetail {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(deposition.id, file.id),
    title: file.filename,
    dateCreated: isoDate(deposition.created),
    dateModified: isoDate(deposition.modified),
    hashes: { md5: md5Of(file.checksum), sha256: null },
    extra: { size: Number(file.filesize), deposition: String(deposition.id) },
    children: [],
  };
}

export async function getResource({ api }: ZenodoSession, id: string): Promise<ResourceDetail> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'deposition') return depositionDetail(await readDeposition(api, parsed.deposition, id));
  const [{ deposition }, file] = await Promise.all([
    readDeposition(api, parsed.deposition, id),
    readFile(api, parsed.deposition, parsed.file, id),
  ]);
  return fileDetail(deposition, file);
}
