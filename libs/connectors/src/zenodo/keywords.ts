import { ConnectorError } from '../connector-error';
import { parseId } from './ids';
import { ownDeposition, readDeposition } from './published';
import type { ZenodoSession } from './session';

/** The deposition an id names; files have no keywords of their own at Zenodo. */
function depositionIdOf(id: string): string {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file')
    throw new ConnectorError(400, 'Zenodo keeps keywords on depositions, not on their files.');
  return parsed.deposition;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A deposition's `metadata.keywords` (https://developers.zenodo.org/#representation), or a published record's. */
export async function keywords({ api }: ZenodoSession, id: string): Promise<string[]> {
  return strings((await readDeposition(api, depositionIdOf(id), id)).deposition.metadata?.keywords);
}

/**
 * Replaces a deposition's keywords by sending its metadata back with new `keywords`
 * (https://developers.zenodo.org/#update takes the whole metadata). A published deposition's metadata changes
 * only after the `edit` action, which this service does not take on itself.
 */
export async function setKeywords(
  { api }: ZenodoSession,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  const deposition = await ownDeposition(api, depositionIdOf(id), id);
  if (deposition.state === 'done')
    throw new ConnectorError(
      400,
      `Deposition ${id} is published: its keywords can change only once it is opened for editing on Zenodo.`,
    );
  // the reserved DOI is Zenodo's answer to `prereserve_doi: true`, not a value to send back
  const { prereserve_doi: _reserved, ...metadata } = deposition.metadata ?? {};
  const updated = await api.updateMetadata(deposition.id, { ...metadata, keywords: [...keywords] }, id);
  return strings(updated.metadata?.keywords);
}
