import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FAIRSHARE_TESTS, FairshareEvaluator, type FairshareTestResult } from '@app/fairshare';
import { ApiErrors } from '../common/dto/error.dto';
import { strictValidation } from '../common/validation.pipe';
import { EvaluationBodyDto, FairshareTestDto, FairshareTestResultDto } from './dto/fairshare.dto';

@ApiTags('services')
@Controller('api_v1/services/fairshare/evaluator')
export class FairshareController {
  constructor(private readonly evaluator: FairshareEvaluator) {}

  @Get()
  @ApiOperation({
    summary: 'The FAIRshare tests one can ask for',
    description:
      'A list kept here, so it answers 200 whether or not the FAIR Evaluator can be reached (the PresQT web ' +
      'client loads it with the page and stops working on any error).',
  })
  @ApiOkResponse({ type: [FairshareTestDto] })
  tests(): readonly FairshareTestDto[] {
    return FAIRSHARE_TESTS;
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Evaluate a resource with FAIRshare tests',
    description:
      'The FAIR Evaluator (FAIRSHARE_EVALUATOR_URL) runs its tests on the identifier; the results of the tests ' +
      'asked for are answered, each with its successes, failures and warnings. This can take minutes.',
  })
  @ApiHeader({ name: 'presqt-email-opt-in', required: false, description: 'accepted and not used' })
  @ApiOkResponse({ type: [FairshareTestResultDto] })
  @ApiErrors({
    400: 'resource_id missing or blank; tests missing, not a list, empty, or holding an unknown test id',
    502: 'the FAIR Evaluator could not be reached, did not answer in FAIRSHARE_EVALUATOR_TIMEOUT_MS, or answered badly',
  })
  evaluate(@Body(strictValidation('body field')) body: EvaluationBodyDto): Promise<FairshareTestResult[]> {
    return this.evaluator.evaluate(body.resource_id.trim(), body.tests);
  }
}
