import { ConnectorError } from '../connector-error';
import { keywordField, OTHER_SUBJECT, subjectField, subjectsNamedBy } from './citation';
import { readDataset, readOnlyReason } from './detail';
import { keywordsOf, stringValues } from './entities';
import { parseId } from './ids';
import type { DataverseSession } from './session';

/** The dataset an id names; Dataverse keeps keywords on datasets, not on their files or folders. */
function datasetIdOf(id: string): string {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind !== 'dataset')
    throw new ConnectorError(400, 'Dataverse keeps keywords on datasets, not on their files or folders.');
  return parsed.dataset;
}

/** The `keyword` values of the citation block of the latest version the user may see. */
export async function keywords({ api }: DataverseSession, id: string): Promise<string[]> {
  const datasetId = datasetIdOf(id);
  return keywordsOf(await readDataset(api, datasetId, id));
}

/**
 * Replaces the dataset's keywords (#edit-dataset-metadata with `replace=true`; in its draft, which Dataverse
 * makes for a published dataset). A dataset whose subject is only "Other", as the service makes them, gets the
 * subjects its keywords name instead ("Chemistry", ...), where they name any.
 */
export async function setKeywords(
  { api }: DataverseSession,
  id: string,
  values: readonly string[],
): Promise<string[]> {
  const datasetId = datasetIdOf(id);
  const version = await readDataset(api, datasetId, id);
  const readOnly = await readOnlyReason(api, datasetId);
  if (readOnly) throw new ConnectorError(403, readOnly);
  const subjects = subjectsNamedBy(values);
  const current = stringValues(version, 'subject');
  const fields = [keywordField(values)];
  if (subjects.length > 0 && current.length === 1 && current[0] === OTHER_SUBJECT)
    fields.push(subjectField(subjects));
  await api.editMetadata(datasetId, fields, id);
  return keywordsOf(await readDataset(api, datasetId, id));
}
