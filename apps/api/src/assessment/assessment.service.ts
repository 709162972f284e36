import { Inject, Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { strictValidation } from '../common/validation.pipe';
import { AssessmentStore, type FairshakeRegistration, type NewAssessment } from './assessment.store';
import { AssessmentBodyDto } from './dto/assessment-body.dto';
import { FairshakeClient } from './fairshake.client';
import { ANSWER_OPTIONS, RUBRICS, type Rubric } from './rubrics';

export interface RubricView {
  metrics: Readonly<Record<string, string>>;
  answer_options: Readonly<Record<string, string>>;
}

export interface AssessmentResult {
  digital_object_id: number;
  rubric_responses: { metric: string; score: string; score_explanation: string }[];
}

const OPTIONS_TEXT = Object.keys(ANSWER_OPTIONS).join(', ');

@Injectable()
export class AssessmentService {
  constructor(
    private readonly store: AssessmentStore,
    @Inject(FairshakeClient) private readonly fairshake: FairshakeClient | null,
  ) {}

  /** `rubrics`: ours unless told otherwise (the `fairshake` alias has FAIRshake's later ones) */
  rubric(rubricId: string, rubrics = RUBRICS): RubricView {
    return { metrics: requireRubric(rubricId, rubrics).metrics, answer_options: ANSWER_OPTIONS };
  }

  /**
   * Checks the answers against the rubric, registers them at FAIRshake when it is configured (before storing
   * them here, so a FAIRshake failure stores nothing), and stores them.
   */
  async assess(rubricId: string, rawBody: unknown, rubrics = RUBRICS): Promise<AssessmentResult> {
    const rubric = requireRubric(rubricId, rubrics);
    if (Array.isArray(rawBody) || (rawBody !== undefined && typeof rawBody !== 'object')) {
      throw ServiceError.badRequest(
        'PresQT Error: the POST body must be a JSON object with project_url, project_title and rubric_answers.',
      );
    }
    const body = (await strictValidation('body field').transform(rawBody ?? {}, {
      type: 'body',
      metatype: AssessmentBodyDto,
    })) as AssessmentBodyDto;
    const answers = answersFor(rubricId, rubric, body.rubric_answers);
    const assessment: Omit<NewAssessment, 'fairshake'> = {
      rubricId: Number(rubricId),
      projectUrl: new URL(body.project_url.trim()).href,
      projectTitle: body.project_title.trim(),
      answers,
    };
    const fairshake = this.fairshake ? await this.register(this.fairshake, rubric, assessment) : undefined;
    const { digitalObjectId } = await this.store.record({ ...assessment, fairshake });
    return {
      digital_object_id: fairshake?.digitalObjectId ?? digitalObjectId,
      rubric_responses: Object.entries(answers).map(([metric, score]) => ({
        metric: rubric.metrics[metric],
        score,
        score_explanation: ANSWER_OPTIONS[score],
      })),
    };
  }

  /** FAIRshake's digital object of the project URL is made once and reused, as it is here. */
  private async register(
    fairshake: FairshakeClient,
    rubric: Rubric,
    assessment: Omit<NewAssessment, 'fairshake'>,
  ): Promise<FairshakeRegistration> {
    const digitalObjectId =
      (await this.store.fairshakeDigitalObjectId(fairshake.url, assessment.projectUrl)) ??
      (await this.store.rememberFairshakeDigitalObjectId(
        fairshake.url,
        assessment.projectUrl,
        await fairshake.createDigitalObject({
          url: assessment.projectUrl,
          title: assessment.projectTitle,
          rubricId: assessment.rubricId,
          rubric,
        }),
      ));
    const assessmentId = await fairshake.createAssessment({
      digitalObjectId,
      rubricId: assessment.rubricId,
      answers: assessment.answers,
    });
    return { url: fairshake.url, digitalObjectId, assessmentId };
  }
}

function requireRubric(rubricId: string, rubrics: Readonly<Record<string, Rubric>>): Rubric {
  const rubric = Object.hasOwn(rubrics, rubricId) ? rubrics[rubricId] : undefined;
  if (!rubric) {
    throw ServiceError.badRequest(
      `PresQT Error: '${rubricId}' is not a valid rubric id. Choices are: ${Object.keys(rubrics).join(', ')}.`,
    );
  }
  return rubric;
}

/** The answer to every metric of the rubric, in the rubric's order; 400 naming what is missing or wrong. */
function answersFor(
  rubricId: string,
  rubric: Rubric,
  given: Record<string, unknown>,
): Record<string, string> {
  const metricIds = Object.keys(rubric.metrics);
  const required = `Required metrics are: ${metricIds.join(', ')}.`;
  const unknown = Object.keys(given).filter((key) => !Object.hasOwn(rubric.metrics, key));
  if (unknown.length > 0) {
    throw ServiceError.badRequest(
      `PresQT Error: ${quoteAll(unknown)} ${unknown.length === 1 ? 'is not a metric' : 'are not metrics'} of rubric ${rubricId}. ${required}`,
    );
  }
  const missing = metricIds.filter((id) => given[id] === undefined || given[id] === null);
  if (missing.length > 0) {
    throw ServiceError.badRequest(
      `PresQT Error: Missing response for metric ${quoteAll(missing)}. ${required}`,
    );
  }
  const answers: Record<string, string> = {};
  const invalid: string[] = [];
  for (const id of metricIds) {
    const option = answerOption(given[id]);
    if (option === undefined) invalid.push(`${JSON.stringify(given[id])} (metric '${id}')`);
    else answers[id] = option;
  }
  if (invalid.length > 0) {
    throw ServiceError.badRequest(
      `PresQT Error: ${invalid.join(', ')} ${invalid.length === 1 ? 'is not a valid answer' : 'are not valid answers'}. Options are: ${OPTIONS_TEXT}.`,
    );
  }
  return answers;
}

/** An answer option given as its string ("0.25"), or as the number it spells (0.25, 1). */
function answerOption(value: unknown): string | undefined {
  if (typeof value === 'string') return Object.hasOwn(ANSWER_OPTIONS, value) ? value : undefined;
  if (typeof value === 'number')
    return Object.keys(ANSWER_OPTIONS).find((option) => Number(option) === value);
  return undefined;
}

function quoteAll(values: string[]): string {
  return values.map((value) => `'${value}'`).join(', ');
}
