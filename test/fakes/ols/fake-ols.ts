import { FakeServer } from '../fake-server';

/** A term of an ontology, as the fake OLS holds it. */
export interface OlsTerm {
  /** the OLS ontology id, lower case (`envo`) */
  ontology: string;
  iri: string;
  label: string;
  synonyms?: string[];
  description?: string[];
  /** IRIs of its parents in the same ontology (is-a) */
  parents?: string[];
  obsolete?: boolean;
}

/**
 * A stand-in for EBI's Ontology Lookup Service (OLS4), the two REST API v1 routes the keyword enhancer uses,
 * answering as OLS4's own controllers do (EBISPOT/ols4, backend/src/main/java/uk/ac/ebi/spot/ols/controller/
 * api/v1/V1SearchController.java and V1OntologyTermController.java; the API guide at
 * https://www.ebi.ac.uk/ols4/help and /ols4/api-docs). Served under `/ols4`, as at EBI.
 */
export function fakeOls(terms: readonly OlsTerm[]): FakeServer {
  const fake = new FakeServer('OLS', '/ols4');
  // GET /api/search (V1SearchController.search): `q`; `ontology` a comma-separated filter; `queryFields` and
  // `exact=true` match the whole lower-cased label or synonym; `local=true` keeps terms of their defining
  // ontology; obsolete terms only with `obsoletes=true`; `rows` (default 10). The answer is Solr-shaped:
  // {responseHeader, response: {numFound, start, docs}, facet_counts}, each doc holding the `fieldList` fields
  // (`synonym` and `description` as lists).
  fake.route('GET', '/api/search', (request, answer) => {
    const query = request.url.searchParams;
    const q = (query.get('q') ?? '').toLowerCase();
    const ontologies = query
      .get('ontology')
      ?.split(',')
      .map((id) => id.trim().toLowerCase());
    const fields = query.get('queryFields')?.split(',') ?? ['label', 'synonym'];
    const exact = query.get('exact') === 'true';
    const rows = Number(query.get('rows') ?? 10);
    const names = (term: OlsTerm) => [
      ...(fields.includes('label') ? [term.label] : []),
      ...(fields.includes('synonym') ? (term.synonyms ?? []) : []),
    ];
    const hits = terms.filter(
      (term) =>
        (!ontologies || ontologies.includes(term.ontology)) &&
        (query.get('obsoletes') === 'true' || !term.obsolete) &&
        names(term).some((name) => (exact ? name.toLowerCase() === q : name.toLowerCase().includes(q))),
    );
    answer.json(200, {
      responseHeader: { status: 0, QTime: 1 },
      response: {
        numFound: hits.length,
        start: 0,
        docs: hits.slice(0, rows).map((term) => ({
          iri: term.iri,
          label: term.label,
          synonym: term.synonyms ?? [],
          ontology_name: term.ontology,
          description: term.description ?? [],
          obo_id: term.iri.split('/').pop()?.replace('_', ':'),
        })),
      },
      facet_counts: { facet_fields: {} },
    });
  });
  // GET /api/ontologies/{onto}/terms/{iri}/parents (V1OntologyTermController.getParents): the IRI double
  // URL-encoded in the path; a HAL page of terms, `_embedded.terms` left out when there are none; 404 for an
  // unknown term. A parent the ontology imports from another (an OBI class above an ENVO one) is answered in the
  // asked ontology, as OLS serves each ontology's whole graph, with is_defining_ontology false.
  fake.route('GET', '/api/ontologies/{onto}/terms/{iri}/parents', (request, answer) => {
    const iri = decodeURIComponent(request.params.iri);
    const term = terms.find((t) => t.ontology === request.params.onto && t.iri === iri);
    if (!term) {
      return answer.json(404, {
        status: 404,
        error: 'Not Found',
        message: 'Resource not found',
        path: request.url.pathname,
      });
    }
    const parents = (term.parents ?? [])
      .map((parent) => terms.find((t) => t.iri === parent))
      .filter((parent): parent is OlsTerm => parent !== undefined);
    answer.json(200, {
      ...(parents.length > 0
        ? {
            _embedded: {
              terms: parents.map((parent) => ({
                iri: parent.iri,
                lang: 'en',
                label: parent.label,
                description: parent.description ?? [],
                synonyms: parent.synonyms ?? [],
                ontology_name: term.ontology,
                is_defining_ontology: parent.ontology === term.ontology,
                is_obsolete: parent.obsolete ?? false,
              })),
            },
          }
        : {}),
      _links: { self: { href: `${fake.origin}${request.url.pathname}` } },
      page: { size: 20, totalElements: parents.length, totalPages: parents.length > 0 ? 1 : 0, number: 0 },
    });
  });
  return fake;
}
