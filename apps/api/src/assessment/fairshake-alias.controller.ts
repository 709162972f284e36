import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CLIENT_ALIASES_TAG } from '../common/client-aliases';
import { ApiErrors } from '../common/dto/error.dto';
import { AssessmentResultDto } from './dto/assessment.dto';
import { ClientRubricDto } from './dto/client-rubric.dto';
import { FairshakeAliasService } from './fairshake-alias.service';
import { FAIRSHAKE_RUBRICS } from './rubrics';

const RUBRIC_PARAM = {
  name: 'rubricId',
  enum: Object.keys(FAIRSHAKE_RUBRICS),
  description: '93: repositories, 94: datasets, 95: tools, 96: automatic (from FAIRshare tests)',
};

/** `fairshake`, the assessment service under the name and in the shapes the PresQT web client uses. */
@ApiTags(CLIENT_ALIASES_TAG)
@Controller('api_v1/services/fairshake/rubric')
export class FairshakeAliasController {
  constructor(private readonly fairshake: FairshakeAliasService) {}

  @Get(':rubricId')
  @ApiOperation({ summary: 'Show a FAIRshake rubric: its metrics and answer options, as lists' })
  @ApiParam(RUBRIC_PARAM)
  @ApiOkResponse({ type: ClientRubricDto })
  @ApiErrors({ 400: 'rubric id not one of the valid ids (the message lists them)' })
  rubric(@Param('rubricId') rubricId: string): ClientRubricDto {
    return this.fairshake.rubric(rubricId);
  }

  @Post(':rubricId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Assess a project with a FAIRshake rubric',
    description:
      'As the assessment service does, with rubrics 93 to 96. Rubric 96 needs no rubric_answers: the FAIR ' +
      'Evaluator runs six FAIRshare tests on project_url, and each answers one metric (a success yes, else a ' +
      'failure no, else maybe).',
  })
  @ApiParam(RUBRIC_PARAM)
  @ApiOkResponse({ type: AssessmentResultDto })
  @ApiErrors({
    400: 'as the assessment service; for 96, project_url missing',
    502: 'FAIRshake (when configured) or, for 96, the FAIR Evaluator could not be reached or answered badly',
  })
  assess(@Param('rubricId') rubricId: string, @Body() body: unknown) {
    return this.fairshake.assess(rubricId, body);
  }
}
