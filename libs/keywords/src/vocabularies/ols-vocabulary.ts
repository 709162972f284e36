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

/** terms asked for per keyword: the same label often stands for a term in several ontologies */
const SEARCH_ROWS = 10;
const SYNONYMS_PER_KEYWORD = 3;
const PARENTS_PER_KEYWORD = 2;
/** upper-level classes every OBO ontology shares (BFO's): true of almost anything, so never offered */
const UPPER_CLASSES = new Set([
  'entity',
  'continuant',
  'occurrent',
  'independent continuant',
  'material entity',
  'process',
  'quality',
  'disposition',
  'role',
  'function',
  'site',
  'object',
  'thing',
]);

export interface OlsOptions {
  /** OLS ontology ids to search, e.g. ['envo', 'go', 'chebi'] (OLS's `ontology` parameter) */
  ontologies: readonly string[];
}

/** A term as OLS's search answers it (the fields asked for with `fieldList`). */
interface SearchDoc {
  iri: string;
  label: string;
  synonyms: string[];
  ontology: string;
  description: string;
}

/**
 * EBI's Ontology Lookup Service (OLS4, REST API v1), searched in the configured ontologies: a keyword is a term
 * whose label or synonym it is exactly (`/api/search` with `exact=true` over `label,synonym`, terms of their
 * defining ontology only); of several, the one whose description fits the resource's other keywords. Its
 * synonyms and its parents' labels (`/api/ontologies/{ontology}/terms/{iri}/parents`) are the new terms.
 */
export class OlsVocabulary implements VocabularyService {
  readonly name = 'ols';

  constructor(private readonly options: OlsOptions) {}

  async termsFor(keyword: string, http: JsonClient, context: LookupContext): Promise<string[]> {
    const answer = fieldsOf(
      await http.get('/api/search', {
        q: keyword,
        ontology: this.options.ontologies.join(','),
        queryFields: 'label,synonym',
        exact: 'true',
        local: 'true',
        rows: String(SEARCH_ROWS),
        fieldList: 'iri,label,synonym,ontology_name,description',
      }),
    );
    const response = fieldsOf(answer.response);
    if (!Array.isArray(response.docs))
      throw new ServiceUnavailable('answered a search without response.docs');
    const docs = response.docs.map(searchDoc).filter((doc): doc is SearchDoc => doc !== undefined);
    const named = docs.filter((doc) =>
      [doc.label, ...doc.synonyms].some((name) => normalizeKeyword(name) === keyword),
    );
    const term = bestByContext(named, (doc) => `${doc.label} ${doc.description}`, context);
    if (!term) return [];
    const parents = fieldsOf(
      await http.get(
        `/api/ontologies/${encodeURIComponent(term.ontology)}/terms/${encodeURIComponent(encodeURIComponent(term.iri))}/parents`,
      ),
    );
    const parentLabels = Array.isArray(fieldsOf(parents._embedded).terms)
      ? (fieldsOf(parents._embedded).terms as unknown[]).flatMap((parent) =>
          stringsOf(fieldsOf(parent).label),
        )
      : [];
    const skip = (candidate: string) => UPPER_CLASSES.has(candidate);
    return [
      ...pickTerms([term.label, ...term.synonyms], keyword, SYNONYMS_PER_KEYWORD, skip),
      ...pickTerms(parentLabels, keyword, PARENTS_PER_KEYWORD, skip),
    ];
  }
}

function searchDoc(value: unknown): SearchDoc | undefined {
  const doc = fieldsOf(value);
  if (typeof doc.iri !== 'string' || typeof doc.label !== 'string' || typeof doc.ontology_name !== 'string') {
    return undefined;
  }
  return {
    iri: doc.iri,
    label: doc.label,
    synonyms: stringsOf(doc.synonym),
    ontology: doc.ontology_name,
    description: stringsOf(doc.description).join(' '),
  };
}
