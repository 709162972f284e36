import { ApiProperty } from '@nestjs/swagger';

class ClientMetricDto {
  @ApiProperty({ example: '30' }) id!: string;
  @ApiProperty() metric_value!: string;
}

class ClientAnswerOptionDto {
  @ApiProperty({ example: '0.25' }) value!: string;
  @ApiProperty({ example: 'nobut' }) value_text!: string;
}

export class ClientRubricDto {
  @ApiProperty({
    type: [ClientMetricDto],
    description: "in the rubric's order; every metric needs an answer",
  })
  metrics!: ClientMetricDto[];
  @ApiProperty({ type: [ClientAnswerOptionDto] }) answer_options!: ClientAnswerOptionDto[];
}
