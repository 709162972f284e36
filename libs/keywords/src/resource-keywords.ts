import type { FtsMetadata } from '@app/metadata';
import { normalizeKeywords } from './normalize-keywords';

/**
 * The keywords of a resource (docs/behaviour.md#keywords): the target's own and its metadata file's `allKeywords`,
 * normalized, the target's first.
 */
export function resourceKeywords(own: readonly string[], metadata: FtsMetadata | null): string[] {
  return normalizeKeywords([...own, ...(metadata?.allKeywords ?? [])]);
}
