import { ApiProperty } from '@nestjs/swagger';
import { isURL } from 'class-validator';
import { CheckedField } from '../../common/checked-field.decorator';
import { ANSWER_OPTIONS } from '../rubrics';

/** FAIRshake keeps a digital object's url and title in 255-character columns. */
const MAX_LENGTH = 255;

/** Each field yields one message: "missing" when absent, otherwise what is wrong with it. */
function Checked(field: string, problem: (value: unknown) => string | undefined): PropertyDecorator {
  return CheckedField(`PresQT Error: '${field}' missing in POST body.`, (value) => {
    const wrong = problem(value);
    return wrong === undefined ? undefined : `PresQT Error: '${field}' ${wrong}`;
  });
}

const tooLong = (value: string) =>
  value.length > MAX_LENGTH ? `is longer than ${MAX_LENGTH} characters.` : undefined;

function projectUrlProblem(value: unknown): string | undefined {
  const url = typeof value === 'string' ? value.trim() : '';
  if (!isURL(url, { require_protocol: true, require_tld: false, protocols: ['http', 'https'] })) {
    return 'must be an absolute http(s) URL, such as https://osf.io/abc12/.';
  }
  return tooLong(url);
}

function projectTitleProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-blank string.';
  return tooLong(value.trim());
}

function rubricAnswersProblem(value: unknown): string | undefined {
  return typeof value === 'object' && !Array.isArray(value)
    ? undefined
    : 'must be an object with the metric ids as keys and answers as values, such as {"12": "1.0"}.';
}

/** Body of an assessment (POST on a rubric). Which metrics and answers are valid depends on the rubric. */
export class AssessmentBodyDto {
  @ApiProperty({ example: 'https://osf.io/abc12/', description: 'the assessed project (its digital object)' })
  @Checked('project_url', projectUrlProblem)
  project_url!: string;

  @ApiProperty({ example: 'Soil Moisture Study' })
  @Checked('project_title', projectTitleProblem)
  project_title!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: Object.keys(ANSWER_OPTIONS) },
    example: { '21': '1.0', '22': '0.75', '23': '0.5' },
    description: 'metric id → answer, one for every metric of the rubric',
  })
  @Checked('rubric_answers', rubricAnswersProblem)
  rubric_answers!: Record<string, unknown>;
}
