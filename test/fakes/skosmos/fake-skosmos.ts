import { FakeServer, type FakeAnswer } from '../fake-server';

/** A SKOS concept, as the fake Skosmos holds it (labels in one language). */
export interface SkosConcept {
  uri: string;
  prefLabel: string;
  altLabels?: string[];
  broader?: string[];
  related?: string[];
}

const CONTEXT = { skos: 'http://www.w3.org/2004/02/skos/core#', uri: '@id', type: '@type' };

/**
 * A stand-in for a Skosmos service (AGROVOC, GEMET and the UNESCO Thesaurus are served by Skosmos), serving one
 * vocabulary in one language through the REST API v1 routes the keyword enhancer uses, as Skosmos' own
 * description and controller say (NatLibFi/Skosmos: swagger.json, src/controller/RestController.php; tests/
 * RestControllerTest.php shows the answers). Errors are plain text, as Controller::returnError sends them.
 */
export function fakeSkosmos(
  vocabulary: string,
  language: string,
  concepts: readonly SkosConcept[],
): FakeServer {
  const fake = new FakeServer('Skosmos', '/browse/rest/v1');
  const byUri = (uri: string | null) => concepts.find((concept) => concept.uri === uri);
  const wrongVocabulary = (vocid: string) => vocid !== vocabulary;
  // Controller::returnError answers plain text: "<code> <status> : <message>"
  const error = (answer: FakeAnswer, status: number, text: string) =>
    answer.send(status, Buffer.from(`${status} ${text}`), { 'content-type': 'text/plain; charset=utf-8' });
  const notFound = (answer: FakeAnswer, message: string) => error(answer, 404, `Not Found : ${message}`);
  // GET /{vocid}/search (RestController::search): `query` matched whole and case-insensitively against
  // preferred and alternative labels (`*` would be a wildcard); a hit on an alternative label carries it as
  // `altLabel`; `unique=true` gives each concept once; `maxhits` bounds the list; 400 without a query.
  fake.route('GET', '/{vocid}/search', (request, answer) => {
    if (wrongVocabulary(request.params.vocid)) return notFound(answer, 'vocabulary not found');
    const query = (request.url.searchParams.get('query') ?? '').trim().toLowerCase();
    if (!query) return error(answer, 400, 'Bad Request : query parameter missing');
    const maxhits = Number(request.url.searchParams.get('maxhits') ?? 0);
    const results = concepts.flatMap((concept) => {
      if (concept.prefLabel.toLowerCase() === query) {
        return [
          {
            uri: concept.uri,
            type: ['skos:Concept'],
            prefLabel: concept.prefLabel,
            lang: language,
            vocab: vocabulary,
          },
        ];
      }
      const alt = concept.altLabels?.find((label) => label.toLowerCase() === query);
      return alt
        ? [
            {
              uri: concept.uri,
              type: ['skos:Concept'],
              prefLabel: concept.prefLabel,
              altLabel: alt,
              lang: language,
              vocab: vocabulary,
            },
          ]
        : [];
    });
    answer.json(200, {
      '@context': {
        ...CONTEXT,
        onki: 'http://schema.onki.fi/onki#',
        results: { '@id': 'onki:results', '@container': '@list' },
        prefLabel: 'skos:prefLabel',
        altLabel: 'skos:altLabel',
        '@language': language,
      },
      uri: '',
      results: maxhits > 0 ? results.slice(0, maxhits) : results,
    });
  });
  // GET /{vocid}/label?uri= (RestController::label): {uri, prefLabel, altLabel: [...]}; 404 for an unknown concept
  fake.route('GET', '/{vocid}/label', (request, answer) => {
    const concept = byUri(request.url.searchParams.get('uri'));
    if (wrongVocabulary(request.params.vocid) || !concept) return notFound(answer, 'Could not find concept');
    answer.json(200, {
      '@context': {
        ...CONTEXT,
        prefLabel: 'skos:prefLabel',
        altLabel: 'skos:altLabel',
        '@language': language,
      },
      uri: concept.uri,
      prefLabel: concept.prefLabel,
      ...(concept.altLabels?.length ? { altLabel: concept.altLabels } : {}),
    });
  });
  // GET /{vocid}/broader?uri= and /{vocid}/related?uri= (RestController::broader, ::related, through
  // transformPropertyResults): {uri, broader|related: [{uri, prefLabel}]}, an empty list when there are none
  for (const relation of ['broader', 'related'] as const) {
    fake.route('GET', `/{vocid}/${relation}`, (request, answer) => {
      const concept = byUri(request.url.searchParams.get('uri'));
      if (wrongVocabulary(request.params.vocid) || !concept)
        return notFound(answer, 'Could not find concept');
      answer.json(200, {
        '@context': {
          ...CONTEXT,
          prefLabel: 'skos:prefLabel',
          [relation]: `skos:${relation}`,
          '@language': language,
        },
        uri: concept.uri,
        [relation]: (concept[relation] ?? [])
          .map((uri) => byUri(uri))
          .filter((other): other is SkosConcept => other !== undefined)
          .map((other) => ({ uri: other.uri, prefLabel: other.prefLabel })),
      });
    });
  }
  return fake;
}
