import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { FairshareSettings } from './fairshare.settings';
import { FAIRSHARE_TESTS, type FairshareTest } from './fairshare-tests';

/** One test's outcome: the evaluator's remarks, sorted by kind. */
export interface FairshareTestResult extends FairshareTest {
  /** the Evaluator's result key for the test (its metric or test URL) */
  metric_link: string;
  successes: string[];
  failures: string[];
  warnings: string[];
}

/** Prefixes of the lines of a test's comment, by the list they go to. */
const REMARKS = [
  ['SUCCESS: ', 'successes'],
  ['FAILURE: ', 'failures'],
  ['WARN: ', 'warnings'],
] as const;

const SCHEMA_COMMENT = 'http://schema.org/comment';

/**
 * Client of the FAIR Evaluator (FAIRSHARE_EVALUATOR_URL: a collection's `evaluate` URL), as its documentation
 * describes it (github.com/FAIRMetrics/Metrics, MetricsEvaluatorCode/Ruby/fairmetrics/README.md, "Execute a
 * New Evaluation"): `POST {resource, executor, title}` runs every test of the collection and redirects to the
 * new evaluation, whose JSON has `evaluationResult`, a JSON string mapping each test to its results; a result's
 * `schema:comment` holds lines starting `SUCCESS: `, `FAILURE: ` or `WARN: `.
 */
@Injectable()
export class FairshareEvaluator {
  constructor(private readonly settings: FairshareSettings) {}

  /** Runs the evaluation of `resource` and answers the results of the tests asked for, in their order. */
  async evaluate(resource: string, testIds: readonly number[]): Promise<FairshareTestResult[]> {
    const evaluation = await this.run(resource);
    const byTest = resultsByTest(evaluation);
    return testIds.flatMap((id) => {
      const test = FAIRSHARE_TESTS.find((known) => known.test_id === id);
      const found = byTest.get(id);
      return test && found ? [{ ...test, metric_link: found.link, ...remarksOf(found.comment) }] : [];
    });
  }

  private async run(resource: string): Promise<unknown> {
    const { evaluatorUrl: url, evaluatorTimeoutMs: timeoutMs } = this.settings;
    let response: Response;
    let text: string;
    try {
      // fetch follows the redirect to the evaluation with a GET, as the documentation's `curl -L` does
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ resource, executor: 'PresQT', title: 'PresQT FAIRshare evaluation' }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw unreachable(error, timeoutMs);
    }
    if (!response.ok) {
      throw new ServiceError(
        502,
        `PresQT Error: the FAIRshare evaluator answered ${response.status} to the evaluation request.`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw badAnswer('its answer is not JSON');
    }
  }
}

interface FoundResult {
  link: string;
  comment: string;
}

/** The evaluation's results by test number; a test is known by the `/metrics/<n>` its key ends with. */
function resultsByTest(evaluation: unknown): Map<number, FoundResult> {
  const raw = (evaluation as { evaluationResult?: unknown } | null)?.evaluationResult;
  let results: unknown;
  try {
    results = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw badAnswer('its evaluationResult is not JSON');
  }
  if (typeof results !== 'object' || results === null) throw badAnswer('it has no evaluationResult');
  const found = new Map<number, FoundResult>();
  for (const [link, entries] of Object.entries(results)) {
    const id = /\/metrics\/(\d+)(?:\.json)?\/?$/.exec(link)?.[1];
    if (id !== undefined) found.set(Number(id), { link, comment: commentOf(entries) });
  }
  return found;
}

function commentOf(entries: unknown): string {
  const first = Array.isArray(entries) ? (entries[0] as Record<string, unknown> | undefined) : undefined;
  const comments = first?.[SCHEMA_COMMENT];
  const value = Array.isArray(comments)
    ? (comments[0] as { '@value'?: unknown } | undefined)?.['@value']
    : '';
  return typeof value === 'string' ? value : '';
}

/** The comment's lines sorted by their prefix, each remark once. */
function remarksOf(comment: string): Pick<FairshareTestResult, 'successes' | 'failures' | 'warnings'> {
  const remarks = { successes: new Set<string>(), failures: new Set<string>(), warnings: new Set<string>() };
  for (const line of comment.split('\n')) {
    const kind = REMARKS.find(([prefix]) => line.startsWith(prefix));
    if (kind) remarks[kind[1]].add(line.slice(kind[0].length).trim());
  }
  return {
    successes: [...remarks.successes],
    failures: [...remarks.failures],
    warnings: [...remarks.warnings],
  };
}

function unreachable(error: unknown, timeoutMs: number): ServiceError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    (error as Error).name === 'TimeoutError'
      ? `no answer within ${timeoutMs} ms`
      : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new ServiceError(502, `PresQT Error: the FAIRshare evaluator could not be reached: ${reason}.`);
}

function badAnswer(what: string): ServiceError {
  return new ServiceError(502, `PresQT Error: the FAIRshare evaluator answered badly: ${what}.`);
}
