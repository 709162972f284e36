import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/dto/error.dto';
import { AssessmentService } from './assessment.service';
import { AssessmentBodyDto } from './dto/assessment-body.dto';
import { AssessmentResultDto, RubricDto } from './dto/assessment.dto';
import { RUBRICS } from './rubrics';

const RUBRIC_PARAM = {
  name: 'rubricId',
  enum: Object.keys(RUBRICS),
  description: '7: tools, 8: datasets, 9: repositories',
};

@ApiTags('services')
@Controller('api_v1/services/assessment/rubric')
export class AssessmentController {
  constructor(private readonly assessments: AssessmentService) {}

  @Get(':rubricId')
  @ApiOperation({ summary: 'Show a FAIR rubric: its metrics and the answer options' })
  @ApiParam(RUBRIC_PARAM)
  @ApiOkResponse({ type: RubricDto })
  @ApiErrors({ 400: 'rubric id not one of the valid ids (the message lists them)' })
  rubric(@Param('rubricId') rubricId: string) {
    return this.assessments.rubric(rubricId);
  }

  @Post(':rubricId')
  @HttpCode(200)
  @ApiOperation({
    summary: "Assess a project with a rubric: answer every one of the rubric's metrics",
    description:
      'The assessment is stored. Every assessment of the same project_url belongs to the same digital object and ' +
      'answers its id. When FAIRshake is configured (FAIRSHAKE_URL and FAIRSHAKE_TOKEN), the digital object and ' +
      "the assessment are also registered there and FAIRshake's digital object id is answered; if FAIRshake " +
      'fails, nothing is stored and the answer is 502. Answers may also be sent as numbers (0.25).',
  })
  @ApiParam(RUBRIC_PARAM)
  @ApiBody({ type: AssessmentBodyDto })
  @ApiOkResponse({ type: AssessmentResultDto })
  @ApiErrors({
    400:
      'invalid rubric id; project_url missing or not an absolute http(s) URL; project_title missing or blank; ' +
      'rubric_answers missing or not an object keyed by metric id; a key that is not a metric of the rubric; ' +
      'a metric without an answer (the message lists the required metrics); an answer not among the options ' +
      '(the message lists them); a body field that is not one of these three',
    502: 'FAIRshake (when configured) could not be reached, did not answer in time, refused the token or the registration',
  })
  assess(@Param('rubricId') rubricId: string, @Body() body: unknown) {
    return this.assessments.assess(rubricId, body);
  }
}
