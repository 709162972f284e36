import { pickTerms } from '../keyword-enhancer';
import { normalizeKeywords } from '../normalize-keywords';
import {
  fieldsOf,
  ServiceUnavailable,
  stringsOf,
  type JsonClient,
  type VocabularyService,
} from './vocabulary-service';

/** concepts asked for per keyword (SciGraph's `limit`; its default is 20) */
const CONCEPTS_PER_KEYWORD = 10;
const TERMS_PER_KEYWORD = 6;

/**
 * A SciGraph vocabulary service: `GET <base>/vocabulary/term/<keyword>` answers the concepts whose label or
 * synonym matches the keyword (SciGraph's ConceptDTO), 404 when there are none; the labels and synonyms of
 * those not deprecated are the new terms.
 */
export class SciGraphVocabulary implements VocabularyService {
  readonly name = 'scigraph';

  async termsFor(keyword: string, http: JsonClient): Promise<string[]> {
    const concepts = await http.get(`/vocabulary/term/${encodeURIComponent(keyword)}`, {
      limit: String(CONCEPTS_PER_KEYWORD),
    });
    if (concepts === undefined) return [];
    if (!Array.isArray(concepts)) throw new ServiceUnavailable('answered something other than a JSON array');
    const candidates = concepts
      .map(fieldsOf)
      .filter((concept) => concept.deprecated !== true)
      .flatMap((concept) => [...sortedTerms(concept.labels), ...sortedTerms(concept.synonyms)]);
    return pickTerms(candidates, keyword, TERMS_PER_KEYWORD);
  }
}

/** SciGraph sends labels and synonyms as sets: sorting makes the choice independent of their order. */
function sortedTerms(value: unknown): string[] {
  return normalizeKeywords(stringsOf(value)).sort();
}
