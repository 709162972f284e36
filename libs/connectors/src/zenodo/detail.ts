import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { isoDate } from '../upstream-values';
import type { ZenodoApi } from './api';
import {
  byFilename,
  depositionKind,
  depositionTitle,
  md5Of,
  type Deposition,
  type DepositionFile,
} from './entities';
import { fileResourceId, parseId } from './ids';

/** Fields of a deposition's metadata about its DOI, which say nothing about the resource itself. */
const DOI_FIELDS = new Set(['doi', 'prereserve_doi']);

export function fileSummary(deposition: Deposition, file: DepositionFile): ResourceSummary {
  return {
    kind: 'item',
    kindName: 'file',
    id: fileResourceId(deposition.id, file.id),
    container: String(deposition.id),
    title: file.filename,
  };
}

function depositionDetail(deposition: Deposition): ResourceDetail {
  const metadata = Object.entries(deposition.metadata ?? {}).filter(([field]) => !DOI_FIELDS.has(field));
  const files = [...(deposition.files ?? [])].sort(byFilename);
  return {
    kind: 'container',
    kindName: depositionKind(deposition),
    id: String(deposition.id),
    title: depositionTitle(deposition),
    dateCreated: isoDate(deposition.created),
    dateModified: isoDate(deposition.modified),
    hashes: { md5: null, sha256: null },
    extra: { ...Object.fromEntries(metadata), state: deposition.state, submitted: deposition.submitted },
    children: files.map((file) => fileSummary(deposition, file)),
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

export async function getResource({ api }: { api: ZenodoApi }, id: string): Promise<ResourceDetail> {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'deposition') return depositionDetail(await api.deposition(parsed.deposition, id));
  const [deposition, file] = await Promise.all([
    api.deposition(parsed.deposition, id),
    api.file(parsed.deposition, parsed.file, id),
  ]);
  return fileDetail(deposition, file);
}
