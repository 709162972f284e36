import { ApiProperty } from '@nestjs/swagger';
import { FAIRSHARE_TEST_IDS } from '@app/fairshare';
import { CheckedField, textProblem } from '../../common/checked-field.decorator';

const OPTIONS = `Options are: [${FAIRSHARE_TEST_IDS.join(', ')}]`;

function testsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "PresQT Error: 'tests' must be in list format.";
  if (value.length === 0) return `PresQT Error: At least one test is required. ${OPTIONS}`;
  const unknown: unknown = (value as unknown[]).find((id) => !FAIRSHARE_TEST_IDS.includes(id as number));
  return unknown === undefined
    ? undefined
    : `PresQT Error: '${JSON.stringify(unknown)}' not a valid test id. ${OPTIONS}`;
}

/** Body of an evaluation. */
export class EvaluationBodyDto {
  @ApiProperty({
    example: 'https://presqt.example.org/api_v1/targets/lab/resources/U29pbCBNb2lzdHVyZSBTdHVkeQ/',
    description: "what to evaluate: a URL or DOI (the web client sends a resource's identifier)",
  })
  @CheckedField("PresQT Error: 'resource_id' missing in the request body.", textProblem('resource_id'))
  resource_id!: string;

  @ApiProperty({ type: [Number], example: [1, 8, 22], description: 'test ids from the list of tests' })
  @CheckedField("PresQT Error: 'tests' missing in the request body.", testsProblem)
  tests!: number[];
}

export class FairshareTestDto {
  @ApiProperty({ example: 1 }) test_id!: number;
  @ApiProperty({ example: 'FAIR Metrics Gen2 - Unique Identifier' }) test_name!: string;
  @ApiProperty() description!: string;
}

export class FairshareTestResultDto extends FairshareTestDto {
  @ApiProperty({ example: 'https://w3id.org/FAIR_Evaluator/metrics/1' }) metric_link!: string;
  @ApiProperty({ type: [String] }) successes!: string[];
  @ApiProperty({ type: [String] }) failures!: string[];
  @ApiProperty({ type: [String] }) warnings!: string[];
}
