import { ServiceError } from '@app/common';
import type { ConnectorSession } from '@app/connectors';

/** Checks that the resource to write into exists for the user (404/403/410 from the target) and is a container. */
export async function requireContainer(session: ConnectorSession, containerId: string): Promise<void> {
  if ((await session.getResource(containerId)).kind !== 'container') {
    throw ServiceError.badRequest(`PresQT Error: The Resource provided, ${containerId}, is not a container.`);
  }
}
