import { ServiceError } from '@app/common';
import type { ConnectorSession } from '@app/connectors';

/**
 * Checks that the resource to write into exists for the user (404/403/410 from the target), is a container,
 * and is the user's to change (403 for someone else's published record).
 */
export async function requireContainer(session: ConnectorSession, containerId: string): Promise<void> {
  const resource = await session.getResource(containerId, { summary: true });
  if (resource.kind !== 'container') {
    throw ServiceError.badRequest(`PresQT Error: The Resource provided, ${containerId}, is not a container.`);
  }
  if (resource.readOnly) throw new ServiceError(403, resource.readOnly);
}
