import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse } from '@nestjs/swagger';
import { ApiErrors } from '../common/dto/error.dto';
import { ProposalDto, ProposalPendingDto } from './dto/emulation.dto';

/** The answers of a proposal poll, under our path and under the web client's `eaasi` alias. */
export function ProposalPollResponses(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiOkResponse({ type: ProposalDto, description: 'finished: the image and the suggested environments' }),
    ApiAcceptedResponse({ type: ProposalPendingDto, description: 'the proposal task is still running' }),
    ApiErrors({
      404: 'not a proposal started here (or it has expired)',
      502: 'the proposal task failed, or the emulation service could not be reached or answered badly',
      503: 'no emulation service is configured (EMULATION_API_URL)',
    }),
  );
}
