import { ConnectorError } from '../connector-error';
import { recordKind, texts } from './entities';
import type { CurateNdSession } from './session';
import { readOnly } from './writing';

/** The subjects CurateND keeps of a work or a file; none is an empty list. */
export async function keywords({ api }: CurateNdSession, id: string): Promise<string[]> {
  const record = await api.record(id);
  if (recordKind(record) === null) throw ConnectorError.unknownResource(id);
  return texts(record.subject);
}

export async function setKeywords(): Promise<string[]> {
  throw readOnly();
}
