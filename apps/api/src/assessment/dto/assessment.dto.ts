import { ApiProperty } from '@nestjs/swagger';
import { ANSWER_OPTIONS } from '../rubrics';

export class RubricDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { '21': 'A standardized ID or accession number is used to identify the dataset.' },
    description: 'metric id → description; every metric needs an answer',
  })
  metrics!: Record<string, string>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: ANSWER_OPTIONS,
    description: 'answer (score) → label',
  })
  answer_options!: Record<string, string>;
}

export class RubricResponseDto {
  @ApiProperty({
    example: 'A standardized ID or accession number is used to identify the dataset.',
    description: "the metric's description",
  })
  metric!: string;
  @ApiProperty({ example: '1.0', description: 'the answer given' }) score!: string;
  @ApiProperty({ example: 'yes', description: "the answer's label" }) score_explanation!: string;
}

export class AssessmentResultDto {
  @ApiProperty({
    example: 1,
    description:
      "the assessed project's digital object: the same for every assessment of the same project_url; FAIRshake's id when FAIRshake is configured",
  })
  digital_object_id!: number;
  @ApiProperty({ type: [RubricResponseDto], description: "one per metric, in the rubric's order" })
  rubric_responses!: RubricResponseDto[];
}
