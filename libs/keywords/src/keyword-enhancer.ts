import { normalizeKeyword, normalizeKeywords } from './normalize-keywords';

/** What is known of the resource whose keywords are enhanced, beyond the keywords themselves. */
export interface EnhancementContext {
  /** the resource's title, read as context for the keywords' senses */
  title?: string;
}

/** What one enhancement found. */
export interface Enhancement {
  /**
   * Terms related to the keywords that are not among them, normalized, in a stable order: the terms of the
   * first keyword first, each keyword's most relevant terms first.
   */
  terms: string[];
  /** the enhancer that found them, as the metadata file records it (`wordnet` when a service fell back to it) */
  enhancer: string;
}

/** Finds terms related to keywords (synonyms, broader terms) in a vocabulary. */
export interface KeywordEnhancer {
  /** the enhancer's name, as the metadata file records it */
  readonly name: string;
  /** What the vocabulary relates to `keywords`, the keywords of one resource read together. */
  enhance(keywords: string[], context?: EnhancementContext): Promise<Enhancement>;
}

/** Nest injection token of the configured KeywordEnhancer. */
export const KEYWORD_ENHANCER = Symbol('KEYWORD_ENHANCER');

/**
 * The first `max` distinct normalized `candidates`, leaving out `keyword` itself and anything `skip` rejects,
 * so that one keyword with a large vocabulary entry cannot flood the result.
 */
export function pickTerms(
  candidates: readonly string[],
  keyword: string,
  max: number,
  skip: (term: string) => boolean = () => false,
): string[] {
  return normalizeKeywords(candidates)
    .filter((term) => term !== keyword && !skip(term))
    .slice(0, max);
}

/** The terms found for each keyword, in keyword order, without duplicates and without any input keyword. */
export function newTerms(keywords: readonly string[], termsPerKeyword: readonly string[][]): string[] {
  const input = new Set(keywords.map(normalizeKeyword));
  return normalizeKeywords(termsPerKeyword.flat()).filter((term) => !input.has(term));
}
