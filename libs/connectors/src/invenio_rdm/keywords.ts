import { ConnectorError } from '../connector-error';
import { subjectTexts, type Subject } from './entities';
import { parseId } from './ids';
import { ownRecord, readRecord } from './records';
import type { InvenioSession } from './session';

/** The record an id names; files have no keywords of their own at InvenioRDM. */
function recordIdOf(id: string): string {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file')
    throw new ConnectorError(400, 'InvenioRDM keeps keywords on records, not on their files.');
  return parsed.record;
}

/** A record's subjects (`metadata.subjects`, https://inveniordm.docs.cern.ch/reference/metadata/#subjects-0-n), draft first. */
export async function keywords({ api }: InvenioSession, id: string): Promise<string[]> {
  return subjectTexts((await readRecord(api, recordIdOf(id), id)).record.metadata);
}

/**
 * Replaces a record's subjects with `keywords`: a subject of a vocabulary whose label is among them stays as it
 * is, the others are free-text subjects. The change goes into the record's draft; a published record without
 * one gets an edit draft (never published here: the user publishes it at the instance).
 */
export async function setKeywords(
  { api }: InvenioSession,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  const record = await ownRecord(api, recordIdOf(id), id);
  const draft = record.is_draft ? record : await api.editDraft(record);
  const metadata = draft.metadata ?? {};
  const kept = (metadata.subjects ?? []).filter(
    (subject) => subject.id !== undefined && keywords.includes(subject.subject ?? ''),
  );
  const subjects: Subject[] = [
    ...kept,
    ...keywords
      .filter((keyword) => !kept.some((subject) => subject.subject === keyword))
      .map((subject) => ({ subject })),
  ];
  const updated = await api.updateDraft(draft, { metadata: { ...metadata, subjects } });
  return subjectTexts(updated.metadata);
}
