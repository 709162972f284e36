import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { TransferBodyDto } from '../transfers/transfer-body.dto';
import { TransfersService } from '../transfers/transfers.service';
import { UploadsService } from '../uploads/uploads.service';
import type { Request, Response } from 'express';
import { ApiErrors } from '../common/dto/error.dto';
import { DESTINATION_TOKEN, RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { strictValidation } from '../common/validation.pipe';
import { CollectionQueryDto } from './dto/collection-query.dto';
import { ResourceCollectionDto, ResourceDetailDto } from './dto/resource.dto';
import { parseResourceSegment } from './resource-segment';
import { ResourcesService } from './resources.service';

/** Error answers of upload and transfer starts. */
const INGEST_ERRORS = {
  400:
    'a header missing or invalid; body field missing or invalid; target lacks the action; transfer partners ' +
    'not allowed; not a container; the user has a process in progress; (upload) bad zip or bag',
  401: 'a token the target rejects',
  403: 'no access to the resource',
  404: 'invalid target name or source target name; resource unknown',
  410: 'resource no longer available',
};

@ApiTags('resources')
@Controller('api_v1/targets/:targetName/resources')
export class ResourcesController {
  constructor(
    private readonly resources: ResourcesService,
    private readonly transfers: TransfersService,
    private readonly uploads: UploadsService,
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
    501: "the target's connector is not available in this version",
  })
  collection(
    @Req() request: Request,
    @Param('targetName') targetName: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
    @Query(strictValidation('query parameter')) query: CollectionQueryDto,
  ) {
    return this.resources.collection(request, targetName, token, query);
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
  @ApiOkResponse({ type: ResourceDetailDto, description: 'the detail' })
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
    501: "the target's connector is not available in this version",
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
    if (format !== 'zip') return this.resources.detail(request, targetName, id, token);
    const started = await this.resources.startDownload(request, targetName, id, token, email);
    response.status(202);
    return started;
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Upload a BagIt zip (multipart) or transfer a resource (JSON) as a new top-level resource',
    description:
      'A JSON body {source_target_name, source_resource_id, keywords} starts a transfer from another target; ' +
      'everything that can be checked is checked before the 202.',
  })
  @ApiHeader({ name: DESTINATION_TOKEN, required: true })
  @ApiHeader({
    name: SOURCE_TOKEN,
    required: false,
    description: 'transfers: the token at the source target',
  })
  @ApiHeader({ name: 'presqt-file-duplicate-action', required: true, enum: ['ignore', 'update'] })
  @ApiHeader({ name: 'presqt-keyword-action', required: false, enum: ['automatic', 'manual', 'none'] })
  @ApiHeader({ name: 'presqt-email-opt-in', required: true, description: 'empty, or one email address' })
  @ApiBody({ type: TransferBodyDto })
  @ApiResponse({ status: 202, description: '{message, transfer_job} (or {message, upload_job})' })
  @ApiErrors(INGEST_ERRORS)
  startIntoTarget(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Param('targetName') targetName: string,
    @Body() body: unknown,
  ) {
    return this.uploadOrTransfer(request, response, targetName, null, body);
  }

  @Post(':resource')
  @HttpCode(202)
  @ApiOperation({ summary: 'Upload a BagIt zip (multipart) or transfer a resource (JSON) into a container' })
  @ApiHeader({ name: DESTINATION_TOKEN, required: true })
  @ApiHeader({
    name: SOURCE_TOKEN,
    required: false,
    description: 'transfers: the token at the source target',
  })
  @ApiHeader({ name: 'presqt-file-duplicate-action', required: true, enum: ['ignore', 'update'] })
  @ApiHeader({ name: 'presqt-keyword-action', required: false, enum: ['automatic', 'manual', 'none'] })
  @ApiHeader({ name: 'presqt-email-opt-in', required: true, description: 'empty, or one email address' })
  @ApiBody({ type: TransferBodyDto })
  @ApiResponse({ status: 202, description: '{message, transfer_job} (or {message, upload_job})' })
  @ApiErrors(INGEST_ERRORS)
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
  private uploadOrTransfer(
    request: Request,
    response: Response,
    targetName: string,
    containerId: string | null,
    body: unknown,
  ) {
    return request.is('multipart/form-data')
      ? this.uploads.start(request, response, targetName, containerId)
      : this.transfers.start(request, targetName, containerId, body);
  }
}
