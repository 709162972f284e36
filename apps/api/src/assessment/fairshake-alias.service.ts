import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { FairshareEvaluator, type FairshareTestResult } from '@app/fairshare';
import { AssessmentService, type AssessmentResult } from './assessment.service';
import { FAIRSHAKE_AUTOMATIC, FAIRSHAKE_RUBRICS } from './rubrics';

/** A rubric as the PresQT web client reads it: lists of objects rather than maps. */
export interface ClientRubricView {
  metrics: { id: string; metric_value: string }[];
  answer_options: { value: string; value_text: string }[];
}

/**
 * The assessment service as the PresQT web client knows it (`fairshake`): FAIRshake's later rubrics 93 to 96 in
 * the client's shapes, rubric 96 answered by FAIRshare tests instead of by the user (docs/behaviour.md#assessment).
 */
@Injectable()
export class FairshakeAliasService {
  constructor(
    private readonly assessments: AssessmentService,
    private readonly evaluator: FairshareEvaluator,
  ) {}

  rubric(rubricId: string): ClientRubricView {
    const { metrics, answer_options } = this.assessments.rubric(rubricId, FAIRSHAKE_RUBRICS);
    return {
      metrics: Object.entries(metrics).map(([id, metric_value]) => ({ id, metric_value })),
      answer_options: Object.entries(answer_options).map(([value, value_text]) => ({ value, value_text })),
    };
  }

  async assess(rubricId: string, rawBody: unknown): Promise<AssessmentResult> {
    if (rubricId !== FAIRSHAKE_AUTOMATIC.rubricId) {
      return this.assessments.assess(rubricId, rawBody, FAIRSHAKE_RUBRICS);
    }
    const body = typeof rawBody === 'object' && rawBody !== null && !Array.isArray(rawBody) ? rawBody : {};
    const projectUrl = (body as { project_url?: unknown }).project_url;
    if (typeof projectUrl !== 'string' || projectUrl.trim() === '') {
      throw ServiceError.badRequest("PresQT Error: 'project_url' missing in POST body.");
    }
    const tests = Object.values(FAIRSHAKE_AUTOMATIC.testForMetric);
    const results = await this.evaluator.evaluate(projectUrl.trim(), tests);
    const answers = Object.fromEntries(
      Object.entries(FAIRSHAKE_AUTOMATIC.testForMetric).map(([metric, test]) => [
        metric,
        answerFrom(results.find((result) => result.test_id === test)),
      ]),
    );
    return this.assessments.assess(rubricId, { ...body, rubric_answers: answers }, FAIRSHAKE_RUBRICS);
  }
}

/** A test's verdict as a rubric answer: any success yes, else any failure no, else maybe. */
function answerFrom(result: FairshareTestResult | undefined): string {
  if (result && result.successes.length > 0) return '1.0';
  if (result && result.failures.length > 0) return '0.0';
  return '0.5';
}
