import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { readCharacterization } from './characterization';
import {
  containedFiles,
  fileTitle,
  firstText,
  isoDate,
  recordKind,
  titleOf,
  type CurateNdRecord,
  type SearchResult,
} from './entities';
import { idFromItemUrl } from './ids';
import { byName } from './names';
import type { CurateNdSession } from './session';

/** Fields the detail shows in its own places; every other field of the record goes into `extra`. */
const SHOWN_OF_ITEM = ['id', 'requestUrl', 'title', 'dateSubmitted', 'modified', 'containedFiles'];
const SHOWN_OF_FILE = ['id', 'requestUrl', 'label', 'dateSubmitted', 'modified', 'characterization'];
/** Shown when CurateND gives neither date (every record seen so far has both): the start of Unix time. */
const UNKNOWN_DATE = new Date(0).toISOString();

export function summarizeResult(result: SearchResult): ResourceSummary {
  return { kind: 'container', kindName: 'item', id: result.id, container: null, title: titleOf(result) };
}

export function summarizeRecord(record: CurateNdRecord): ResourceSummary | null {
  switch (recordKind(record)) {
    case 'item':
      return summarizeResult(record);
    case 'file':
      return {
        kind: 'item',
        kindName: 'file',
        id: record.id,
        container: idFromItemUrl(firstText(record.isPartOf)),
        title: fileTitle(record),
      };
    default:
      return null;
  }
}

function extraOf(record: CurateNdRecord, shown: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !shown.includes(key)));
}

/** `dateSubmitted` is when the object was deposited, `modified` when it last changed (Dublin Core terms). */
function datesOf(record: CurateNdRecord): Pick<ResourceDetail, 'dateCreated' | 'dateModified'> {
  const created = isoDate(record.dateSubmitted);
  const modified = isoDate(record.modified);
  return {
    dateCreated: created ?? modified ?? UNKNOWN_DATE,
    dateModified: modified ?? created ?? UNKNOWN_DATE,
  };
}

function describeItem(record: CurateNdRecord): ResourceDetail {
  const children = containedFiles(record)
    .map((file) => ({
      kind: 'item' as const,
      kindName: 'file',
      id: file.id,
      container: record.id,
      title: fileTitle(file),
    }))
    .sort((a, b) => byName(a.title, b.title));
  return {
    kind: 'container',
    kindName: 'item',
    id: record.id,
    title: titleOf(record),
    ...datesOf(record),
    hashes: { md5: null, sha256: null },
    extra: extraOf(record, SHOWN_OF_ITEM),
    children,
  };
}

function describeFile(record: CurateNdRecord): ResourceDetail {
  const { md5, size } = readCharacterization(record.characterization);
  const extra = extraOf(record, SHOWN_OF_FILE);
  return {
    kind: 'item',
    kindName: 'file',
    id: record.id,
    title: fileTitle(record),
    ...datesOf(record),
    hashes: { md5, sha256: null },
    extra: size === null ? extra : { ...extra, size },
    children: [],
  };
}

/** The detail of a work or a file; 404 for anything else CurateND holds (a person, a collection). */
export async function getResource({ api }: CurateNdSession, id: string): Promise<ResourceDetail> {
  const record = await api.record(id);
  switch (recordKind(record)) {
    case 'item':
      return describeItem(record);
    case 'file':
      return describeFile(record);
    default:
      throw ConnectorError.unknownResource(id);
  }
}
