import { pickTerms } from '../keyword-enhancer';
import { normalizeKeyword } from '../normalize-keywords';
import {
  bestByContext,
  fieldsOf,
  ServiceUnavailable,
  stringsOf,
  type JsonClient,
  type LookupContext,
  type VocabularyService,
} from './vocabulary-service';

const SEARCH_HITS = 10;
const ALT_LABELS_PER_KEYWORD = 3;
const BROADER_PER_KEYWORD = 2;
const RELATED_PER_KEYWORD = 2;

export interface SkosmosOptions {
  /** the Skosmos vocabulary id, e.g. `agrovoc`, `gemet`, `unescot` */
  vocabulary: string;
  /** the language of labels searched and answered, e.g. `en` */
  language: string;
}

interface Hit {
  uri: string;
  prefLabel: string;
  /** the label that matched, when it was an alternative one */
  altLabel?: string;
}

/**
 * A SKOS vocabulary served by Skosmos (AGROVOC, GEMET, the UNESCO Thesaurus), through its REST API v1: a
 * keyword is a concept whose preferred or alternative label it is exactly (`/{vocid}/search`), preferred
 * labels first and, of several, the one whose labels fit the resource's other keywords. Its preferred label
 * (when the keyword was another), alternative labels (`/{vocid}/label`), broader (`/{vocid}/broader`) and
 * related (`/{vocid}/related`) concepts are the new terms.
 */
export class SkosmosVocabulary implements VocabularyService {
  readonly name = 'skosmos';
  private readonly base: string;

  constructor(private readonly options: SkosmosOptions) {
    this.base = `/rest/v1/${encodeURIComponent(options.vocabulary)}`;
  }

  async termsFor(keyword: string, http: JsonClient, context: LookupContext): Promise<string[]> {
    const lang = this.options.language;
    const search = await http.get(`${this.base}/search`, {
      query: keyword,
      lang,
      unique: 'true',
      maxhits: String(SEARCH_HITS),
    });
    // a search answers 404 only for a vocabulary the service does not have: a configuration error
    if (search === undefined) throw new ServiceUnavailable(`has no vocabulary '${this.options.vocabulary}'`);
    const answer = fieldsOf(search);
    if (!Array.isArray(answer.results)) throw new ServiceUnavailable('answered a search without results');
    const hits = answer.results.map(hit).filter((found): found is Hit => found !== undefined);
    const byPrefLabel = hits.filter((found) => normalizeKeyword(found.prefLabel) === keyword);
    const byAltLabel = hits.filter((found) => found.altLabel && normalizeKeyword(found.altLabel) === keyword);
    const concept = bestByContext(
      byPrefLabel.length > 0 ? byPrefLabel : byAltLabel,
      (found) => found.prefLabel,
      context,
    );
    if (!concept) return [];
    const query = { uri: concept.uri, lang };
    const [labels, broader, related] = await Promise.all([
      http.get(`${this.base}/label`, query),
      http.get(`${this.base}/broader`, query),
      http.get(`${this.base}/related`, query),
    ]);
    return [
      ...pickTerms(
        [concept.prefLabel, ...stringsOf(fieldsOf(labels).altLabel)],
        keyword,
        1 + ALT_LABELS_PER_KEYWORD,
      ),
      ...pickTerms(prefLabels(fieldsOf(broader).broader), keyword, BROADER_PER_KEYWORD),
      ...pickTerms(prefLabels(fieldsOf(related).related), keyword, RELATED_PER_KEYWORD),
    ];
  }
}

function hit(value: unknown): Hit | undefined {
  const found = fieldsOf(value);
  if (typeof found.uri !== 'string' || typeof found.prefLabel !== 'string') return undefined;
  return {
    uri: found.uri,
    prefLabel: found.prefLabel,
    altLabel: typeof found.altLabel === 'string' ? found.altLabel : undefined,
  };
}

/** The preferred labels of a Skosmos list of concepts (`[{uri, prefLabel}]`). */
function prefLabels(value: unknown): string[] {
  return Array.isArray(value) ? value.flatMap((concept) => stringsOf(fieldsOf(concept).prefLabel)) : [];
}
