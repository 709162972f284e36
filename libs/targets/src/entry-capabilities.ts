import type { Ability, ConnectorCapabilities } from '@app/connectors';
import type { TargetAction, TargetEntry } from './target-entry';

/** The abilities each action needs of the connector: an entry may not offer what its connector cannot do. */
const ACTION_NEEDS: Partial<Record<TargetAction, readonly Ability[]>> = {
  resource_upload: ['write'],
  resource_transfer_in: ['write'],
  keywords: ['keywords'],
  keywords_upload: ['write', 'keywords'],
};

/**
 * Problems with an entry's `search_parameters` and `supported_actions` given its connector's declared
 * capabilities, each naming the field: a search or an action the connector cannot serve would otherwise be
 * offered to users and fail only when one tries it.
 */
export function capabilityProblems(
  entry: Pick<TargetEntry, 'connector' | 'search_parameters' | 'supported_actions'>,
  capabilities: ConnectorCapabilities,
): string[] {
  const searches = entry.search_parameters
    .filter((filter) => !capabilities.searchFilters.includes(filter))
    .map(
      (filter) =>
        `field 'search_parameters' lists '${filter}', which the ${entry.connector} connector does not search by (it searches by: ${capabilities.searchFilters.join(', ')})`,
    );
  const actions = Object.entries(ACTION_NEEDS).flatMap(([action, needs]) => {
    const missing = needs.filter((ability) => !capabilities[ability]);
    if (!entry.supported_actions[action as TargetAction] || missing.length === 0) return [];
    return [
      `field 'supported_actions' turns on '${action}', which needs what the ${entry.connector} connector has not: ${missing.join(', ')}`,
    ];
  });
  return [...searches, ...actions];
}
