import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiExcludeEndpoint,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServiceError } from '@app/common';
import { JobFiles } from '@app/job-files';
import { ApiErrors } from '../common/dto/error.dto';
import { LinkBuilder } from '../common/link-builder';
import { RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { strictValidation } from '../common/validation.pipe';
import { sendDownloadZip } from '../jobs/download-zip';
import {
  EmulationDownloadQueryDto,
  ProposalBodyDto,
  ProposalDto,
  ProposalPendingDto,
  ProposalStartedDto,
} from './dto/emulation.dto';
import { EmulationService } from './emulation.service';
import { ProposalPollResponses } from './proposal-poll.docs';
import { ProposerConfigured } from './proposer-configured.guard';

@ApiTags('services')
@Controller('api_v1/services/emulation')
export class EmulationController {
  constructor(
    private readonly emulation: EmulationService,
    private readonly links: LinkBuilder,
    private readonly files: JobFiles,
  ) {}

  @Post('proposals')
  @HttpCode(200)
  @UseGuards(ProposerConfigured)
  @ApiOperation({
    summary: "Start an emulation proposal for the user's finished download",
    description:
      "The emulation service (EaaSI) is sent a single-use link to the download's BagIt zip and proposes " +
      'emulation environments for it; poll `proposal_link`.',
  })
  @ApiHeader({ name: SOURCE_TOKEN, required: true, description: 'the token the download was started with' })
  @ApiOkResponse({ type: ProposalStartedDto })
  @ApiErrors({
    400: 'token header missing; ticket_number missing; the download is still in progress',
    404: "ticket_number is not this token's ticket; no finished download (or its zip) for the user",
    502: 'the emulation service could not be reached or answered badly',
    503: 'no emulation service is configured (EMULATION_API_URL)',
  })
  propose(
    @Req() request: Request,
    @RequiredHeader(SOURCE_TOKEN) token: string,
    @Body(strictValidation('body field')) body: ProposalBodyDto,
  ): Promise<ProposalStartedDto> {
    return this.emulation.propose(this.links.for(request), token, body.ticket_number);
  }

  @Get('proposals/:proposalId')
  @UseGuards(ProposerConfigured)
  @ApiOperation({ summary: 'Poll an emulation proposal' })
  @ProposalPollResponses()
  async proposal(
    @Param('proposalId') proposalId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ProposalDto | ProposalPendingDto> {
    const { status, body } = await this.emulation.proposal(proposalId);
    response.status(status);
    return body;
  }

  /** The proposals path takes POST only; without this its GET would be read as a download of ticket "proposals". */
  @Get('proposals')
  @ApiExcludeEndpoint()
  proposalsByGet(@Req() request: Request, @Res() response: Response): never {
    throw methodNotAllowed(response, request.path, 'POST');
  }

  @Get(':ticketNumber')
  @ApiOperation({
    summary: "Fetch a download's zip with an emulation token (used by the emulation service)",
    description: 'Each emulation token serves one download and expires with the download.',
  })
  @ApiParam({ name: 'ticketNumber', description: "the download's ticket_number" })
  @ApiProduces('application/zip')
  @ApiOkResponse({ description: 'the BagIt zip', schema: { type: 'string', format: 'binary' } })
  @ApiErrors({
    400: 'emulation_token query parameter absent',
    401: 'emulation_token not valid for this download, or already used',
    404: 'invalid ticket number; the download or its zip is no longer available',
  })
  async download(
    @Req() request: Request,
    @Param('ticketNumber') ticketNumber: string,
    @Query(strictValidation('query parameter')) query: EmulationDownloadQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    // Express answers HEAD with the GET route, which would use up the single-use token without sending the zip
    if (request.method === 'HEAD') throw methodNotAllowed(response, request.path, 'GET');
    const record = await this.emulation.redeem(ticketNumber, query.emulation_token);
    await sendDownloadZip(this.files, record, response);
  }
}

function methodNotAllowed(response: Response, path: string, allowed: string): ServiceError {
  response.setHeader('Allow', allowed);
  return new ServiceError(405, `PresQT Error: only ${allowed} is allowed on ${path}.`);
}
