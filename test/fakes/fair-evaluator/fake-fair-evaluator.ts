import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';

/**
 * A fake of the FAIR Evaluator, the part an evaluation uses, as its documentation describes it
 * (github.com/FAIRMetrics/Metrics, MetricsEvaluatorCode/Ruby/fairmetrics/README.md: "Execute a New Evaluation"
 * and "/evaluations/{id}"): `POST /collections/{id}/evaluate` with `{resource, executor, title}` runs the
 * collection's tests and answers 302 to the new evaluation; `GET /evaluations/{id}` answers its JSON-LD, whose
 * `evaluationResult` is a JSON string mapping each test to a list of results with a `schema:comment`.
 * Results are keyed by the metric's w3id URL, as the collection the original PresQT used (16) gave them.
 */

/** The tests of collection 16, by metric number. */
export const COLLECTION_16 = [1, 2, 4, 5, 6, 7, 8, 10, 13, 17, 19, 22];
const W3ID = 'https://w3id.org/FAIR_Evaluator';
const SIO_VALUE = 'http://semanticscience.org/resource/SIO_000300';
const SIO_TESTED = 'http://semanticscience.org/resource/SIO_000332';

export interface FakeEvaluation {
  id: number;
  collection: string;
  input: { resource?: unknown; executor?: unknown; title?: unknown };
}

export class FakeFairEvaluator {
  readonly server = new FakeServer('FAIR Evaluator', '/FAIR_Evaluator');
  readonly evaluations: FakeEvaluation[] = [];

  constructor() {
    this.server.route('POST', '/collections/{id}/evaluate', (req, res) => this.evaluate(req, res));
    this.server.route('GET', '/evaluations/{id}', (req, res) => this.show(req, res));
  }

  /** the `evaluate` URL of collection 16, for FAIRSHARE_EVALUATOR_URL */
  get evaluateUrl(): string {
    return `${this.server.url}/collections/16/evaluate`;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  private async evaluate(req: FakeRequest, res: FakeAnswer): Promise<void> {
    const input = await req.json<FakeEvaluation['input']>();
    if (typeof input?.resource !== 'string' || input.resource === '') {
      return res.json(422, { error: 'resource is required' });
    }
    const evaluation = { id: this.evaluations.length + 1, collection: req.params.id, input };
    this.evaluations.push(evaluation);
    res.empty(302, { location: `${this.server.url}/evaluations/${evaluation.id}` });
  }

  private show(req: FakeRequest, res: FakeAnswer): void {
    const evaluation = this.evaluations.find(({ id }) => String(id) === req.params.id);
    if (!evaluation) return res.json(404, { error: 'not found' });
    const resource = String(evaluation.input.resource);
    const results = Object.fromEntries(
      COLLECTION_16.map((metric) => [`${W3ID}/metrics/${metric}`, [testResult(metric, resource)]]),
    );
    res.json(200, {
      '@id': `${W3ID}/evaluations/${evaluation.id}`,
      '@context': `${W3ID}/schema`,
      '@type': [
        'http://purl.org/dc/dcmitype/Dataset',
        'https://purl.org/fair-ontology/FAIR-Evaluation-Output',
      ],
      collection: `${W3ID}/collections/${evaluation.collection}`,
      primaryTopic: resource,
      title: evaluation.input.title,
      creator: evaluation.input.executor,
      evaluationInput: JSON.stringify(evaluation.input),
      evaluationResult: JSON.stringify(results),
    });
  }
}

/**
 * What a test says of a resource: an http(s) URL passes the identifier tests (1, 10), nothing else passes; the
 * same remark twice, as real tests repeat themselves, and a warning for test 8.
 */
function testResult(metric: number, resource: string): Record<string, unknown> {
  const isUrl = /^https?:\/\//.test(resource);
  const passes = isUrl && (metric === 1 || metric === 10);
  const lines = passes
    ? [`SUCCESS: Found an identifier of type 'uri' for test ${metric}`]
    : [
        `FAILURE: Test ${metric} found nothing for ${resource}`,
        `FAILURE: Test ${metric} found nothing for ${resource}`,
      ];
  if (metric === 8) lines.push('WARN: The search engine could not be asked.');
  return {
    '@id': `${W3ID}/metrics/${metric}#${resource}/result`,
    '@type': ['http://fairmetrics.org/resources/metric_evaluation_result'],
    [SIO_VALUE]: [{ '@value': passes ? '1' : '0', '@type': 'http://www.w3.org/2001/XMLSchema#int' }],
    [SIO_TESTED]: [{ '@value': resource, '@language': 'en' }],
    'http://schema.org/comment': [
      { '@value': `Running test ${metric}\n${lines.join('\n')}\n`, '@language': 'en' },
    ],
  };
}
