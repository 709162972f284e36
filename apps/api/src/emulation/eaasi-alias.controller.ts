import { Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CLIENT_ALIASES_TAG } from '../common/client-aliases';
import { ApiErrors } from '../common/dto/error.dto';
import { LinkBuilder } from '../common/link-builder';
import { RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { ProposalDto, ProposalPendingDto, ProposalStartedDto } from './dto/emulation.dto';
import { EmulationService } from './emulation.service';
import { ProposalPollResponses } from './proposal-poll.docs';
import { ProposerConfigured } from './proposer-configured.guard';

/** `eaasi`, the emulation service under the name and paths the PresQT web client uses. */
@ApiTags(CLIENT_ALIASES_TAG)
@Controller('api_v1/services/eaasi/proposals')
@UseGuards(ProposerConfigured)
export class EaasiAliasController {
  constructor(
    private readonly emulation: EmulationService,
    private readonly links: LinkBuilder,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: "Start an emulation proposal for the token's last download",
    description:
      'As POST services/emulation/proposals/, the download being found by the token alone; a body is ignored. ' +
      'Poll `proposal_link`.',
  })
  @ApiHeader({ name: SOURCE_TOKEN, required: true, description: 'the token the download was started with' })
  @ApiOkResponse({ type: ProposalStartedDto })
  @ApiErrors({
    400: 'token header missing; the download is still in progress',
    404: 'no finished download (or its zip) for the token',
    502: 'the emulation service could not be reached or answered badly',
    503: 'no emulation service is configured (EMULATION_API_URL)',
  })
  propose(@Req() request: Request, @RequiredHeader(SOURCE_TOKEN) token: string): Promise<ProposalStartedDto> {
    return this.emulation.proposeLastDownload(this.links.for(request), token);
  }

  @Get(':proposalId')
  @ApiOperation({ summary: 'Poll an emulation proposal (as services/emulation/proposals/{id}/)' })
  @ProposalPollResponses()
  async proposal(
    @Param('proposalId') proposalId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ProposalDto | ProposalPendingDto> {
    const { status, body } = await this.emulation.proposal(proposalId);
    response.status(status);
    return body;
  }
}
