import type { ResourceSummary, ResourceWriter } from '../connector';
import { ConnectorError } from '../connector-error';

/** CurateND is a source only in this service: every write is refused. */
export function readOnly(): ConnectorError {
  return new ConnectorError(
    400,
    'CurateND is a read-only source in this service: nothing can be written to it.',
  );
}

export async function createProject(): Promise<ResourceSummary> {
  throw readOnly();
}

export async function openWriter(): Promise<ResourceWriter> {
  throw readOnly();
}
