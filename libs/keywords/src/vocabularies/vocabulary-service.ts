import { glossTokens } from '../wordnet/gloss-tokens';

/** A failure of the service itself (an HTTP error, an answer of the wrong shape), as opposed to a term it lacks. */
export class ServiceUnavailable extends Error {}

/** GETs JSON from a vocabulary service, below its base URL. */
export interface JsonClient {
  /**
   * The parsed JSON answer of `GET <base><path>?<query>`; undefined when the service answers 404 (it has no
   * such term). Throws ServiceUnavailable for any other failure.
   */
  get(path: string, query?: Record<string, string>): Promise<unknown>;
}

/** What one keyword is looked up with: the resource's other keywords and title, as content words. */
export interface LookupContext {
  words: ReadonlySet<string>;
}

/** One vocabulary behind the HTTP enhancer: SciGraph, an OLS instance, a Skosmos vocabulary. */
export interface VocabularyService {
  /** what the metadata file records as the enhancer */
  readonly name: string;
  /** The terms the vocabulary relates to `keyword` (synonyms, broader and related terms), best first. */
  termsFor(keyword: string, http: JsonClient, context: LookupContext): Promise<string[]>;
}

/** The object fields of a JSON value, or an empty object for anything else. */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The strings of a JSON value that is a string or a list of them. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * Of several concepts a vocabulary has under one label, the one whose description shares most words with the
 * resource's other keywords and title; the first (the service's own ranking) when none shares any.
 */
export function bestByContext<T>(
  candidates: readonly T[],
  text: (candidate: T) => string,
  context: LookupContext,
): T | undefined {
  let best: T | undefined;
  let bestShared = -1;
  for (const candidate of candidates) {
    const shared = new Set(glossTokens(text(candidate)).filter((word) => context.words.has(word))).size;
    if (shared > bestShared) {
      best = candidate;
      bestShared = shared;
    }
  }
  return best;
}
