import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { parseEmailOptIn } from '@app/mail';
import { ApiErrors } from '../common/dto/error.dto';
import { duplicateAction, fairshareOptIn, keywordAction, requiredHeader } from '../common/job-headers';
import { LinkBuilder } from '../common/link-builder';
import { DESTINATION_TOKEN, RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { strictValidation } from '../common/validation.pipe';
import { RateLimitGuard } from '../common/rate-limits';
import { CollectionQueryDto } from './dto/collection-query.dto';
import { ResourceCollectionDto, ResourceDetailDto } from './dto/resource.dto';
import { TransferBodyDto } from '../transfers/transfer-body.dto';
import { TransfersService, type TransferRequest } from '../transfers/transfers.service';
import { receiveUpload } from '../uploads/receive-upload';
import { UploadsService, type UploadRequest } from '../uploads/uploads.service';
import { parseResourceSegment } from './resource-segment';
import { ApiUploadOrTransfer } from './upload-or-transfer.docs';
import { ResourcesService } from './resources.service';

@ApiTags('resources')
// job starts and listings are limited per token and per address (docs/limits.md#rate-limits)
@UseGuards(RateLimitGuard)
@Controller('api_v1/targets/:targetName/resources')
export class ResourcesController {
  constructor(
    private readonly resources: ResourcesService,
    private readonly transfers: TransfersService,
    private readonly uploads: UploadsService,
    private readonly links: LinkBuilder,
  ) {}

  @ApiHeader({ name: SOURCE_TOKEN, required: true, description: "the user's token at the target" })
  @Get()
  @ApiOperation({
    summary: "List or search the user's top-level resources, a page at a time",
    description:
      "At most one search filter per request, and only those in the target's search_parameters. `+` in a value " +
      'reads as a space; a blank value means no search. Ordered by date modified, newest first.',
  })
  @ApiOkResponse({ type: ResourceCollectionDto })
  @ApiErrors({
    400: 'token header missing; target lacks resource_collection; malformed search query or page',
    401: 'invalid token',
    404: 'invalid target name',
  })
  collection(
    @Req() request: Request,
    @Param('targetName') targetName: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
    @Query(strictValidation('query parameter')) query: CollectionQueryDto,
  ) {
    return this.resources.collection(this.links.for(request), targetName, token, query);
  }

  @ApiHeader({ name: SOURCE_TOKEN, required: true, description: "the user's token at the target" })
  @Get(':resource')
  @ApiOperation({
    summary: 'Show one resource (`{id}.json` or `{id}`), or start its download as a BagIt zip (`{id}.zip`)',
    description:
      "A download is checked (headers, target, token, resource, the user's download slot) and then runs in a " +
      'worker; poll the returned job links. `presqt-email-opt-in` is required for a download: empty for no ' +
      'email, or one address to be told when the job ends.',
  })
  @ApiParam({ name: 'resource', description: 'the resource id, optionally followed by `.json` or `.zip`' })
  @ApiHeader({
    name: 'presqt-email-opt-in',
    required: false,
    description: 'downloads only: empty or one email address',
  })
  @ApiOkResponse({
    type: ResourceDetailDto,
    description:
      'the detail; when the target fails (unreachable, too slow, answering badly), a placeholder with ' +
      "kind_name 'unavailable' and an `error` field instead, still 200 (the PresQT web client stops on errors here)",
  })
  @ApiResponse({
    status: 202,
    description: 'download started: {message, download_job_zip, download_job_json, ticket_number}',
  })
  @ApiErrors({
    400:
      'token header missing; target lacks resource_detail or resource_download; format other than json or zip; ' +
      'email opt-in header missing or invalid; the user has a download in progress',
    401: 'invalid token',
    403: 'no access to the resource',
    404: 'invalid target name; resource id unknown for the user',
    410: 'resource no longer available',
    502: 'downloads only: the target could not be reached or answered badly',
  })
  async detailOrDownload(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Param('targetName') targetName: string,
    @Param('resource') segment: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
    @Headers('presqt-email-opt-in') email: string | undefined,
  ) {
    const { id, format } = parseResourceSegment(segment, ['json', 'zip']);
    const links = this.links.for(request);
    if (format !== 'zip') return this.resources.detail(links, targetName, id, token);
    const started = await this.resources.startDownload(links, targetName, id, token, email);
    response.status(202);
    return started;
  }

  @Post()
  @ApiUploadOrTransfer('Upload a BagIt zip or transfer a resource, as a new top-level resource')
  startIntoTarget(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Param('targetName') targetName: string,
    @Body() body: unknown,
  ) {
    return this.uploadOrTransfer(request, response, targetName, null, body);
  }

  @Post(':resource')
  @ApiUploadOrTransfer('Upload a BagIt zip or transfer a resource, into a container')
  startIntoContainer(
    @Req() request: Request,
    @Param('targetName') targetName: string,
    @Res({ passthrough: true }) response: Response,
    @Param('resource') containerId: string,
    @Body() body: unknown,
  ) {
    return this.uploadOrTransfer(request, response, targetName, containerId, body);
  }

  /** Both start on the same paths: a multipart body is an upload, any other a transfer. */
  private async uploadOrTransfer(
    request: Request,
    response: Response,
    targetName: string,
    containerId: string | null,
    body: unknown,
  ) {
    const links = this.links.for(request);
    if (request.is('multipart/form-data')) {
      return this.uploads.start(links, uploadRequest(request, targetName, containerId), (...into) =>
        receiveUpload(request, response, ...into),
      );
    }
    return this.transfers.start(links, await transferRequest(request, targetName, containerId, body));
  }
}

/** An upload's headers, checked in the order their errors are reported. */
function uploadRequest(request: Request, targetName: string, containerId: string | null): UploadRequest {
  return {
    targetName,
    containerId,
    token: requiredHeader(request, DESTINATION_TOKEN),
    duplicate: duplicateAction(request),
    email: parseEmailOptIn(request.header('presqt-email-opt-in')),
  };
}

/** A transfer's headers, checked in the order their errors are reported, then its body. */
async function transferRequest(
  request: Request,
  destinationName: string,
  containerId: string | null,
  body: unknown,
): Promise<TransferRequest> {
  const destinationToken = requiredHeader(request, DESTINATION_TOKEN);
  const sourceToken = requiredHeader(request, SOURCE_TOKEN);
  const duplicate = duplicateAction(request);
  const keywords = keywordAction(request);
  const email = parseEmailOptIn(request.header('presqt-email-opt-in'));
  const fairshare = fairshareOptIn(request);
  // the same paths take multipart uploads, so the body is validated here rather than by a @Body() pipe
  const validated = (await strictValidation('body field').transform(body ?? {}, {
    type: 'body',
    metatype: TransferBodyDto,
  })) as TransferBodyDto;
  return {
    destinationName,
    containerId,
    sourceToken,
    destinationToken,
    duplicate,
    keywordAction: keywords,
    email,
    fairshare,
    body: validated,
  };
}
