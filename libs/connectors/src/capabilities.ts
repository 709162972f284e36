import type { Ability, ConnectorCapabilities, SearchFilter } from './connector';

/** What a connector declares: the search filters it takes, the abilities it has, the largest file it takes. */
export interface DeclaredCapabilities {
  searchFilters: readonly SearchFilter[];
  /** every ability left out is one it has not */
  abilities: readonly Ability[];
  maxFileBytes?: number;
}

/** A connector's capabilities, from what it declares. */
export function capabilities({
  searchFilters,
  abilities,
  maxFileBytes,
}: DeclaredCapabilities): ConnectorCapabilities {
  const has = (ability: Ability) => abilities.includes(ability);
  return {
    searchFilters,
    write: has('write'),
    folders: has('folders'),
    zippedFolders: has('zippedFolders'),
    keywords: has('keywords'),
    claimedProjects: has('claimedProjects'),
    takesBackNewProjects: has('takesBackNewProjects'),
    takesBackCreatedFiles: has('takesBackCreatedFiles'),
    gitLfs: has('gitLfs'),
    maxFileBytes: maxFileBytes ?? null,
  };
}
