/** One keyword as the service stores and compares it (docs/behaviour.md#keywords): trimmed, lower-cased, inner spaces single. */
export function normalizeKeyword(keyword: string): string {
  return keyword.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Keywords normalized, without empties and duplicates, in the order they were first seen (docs/behaviour.md#keywords). */
export function normalizeKeywords(keywords: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const keyword of keywords) {
    const normalized = normalizeKeyword(keyword);
    if (normalized !== '') seen.add(normalized);
  }
  return [...seen];
}
