import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ServiceError } from '@app/common';
import { ApiErrors } from '../common/dto/error.dto';
import { RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { strictValidation } from '../common/validation.pipe';
import { CollectionQueryDto } from './dto/collection-query.dto';
import { ResourceCollectionDto, ResourceDetailDto } from './dto/resource.dto';
import { parseResourceSegment } from './resource-segment';
import { ResourcesService } from './resources.service';

@ApiTags('resources')
@ApiHeader({ name: SOURCE_TOKEN, required: true, description: "the user's token at the target" })
@Controller('api_v1/targets/:targetName/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

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

  @Get(':resource')
  @ApiOperation({
    summary: 'Show one resource with its children',
    description: '`{id}.json` or plain `{id}` answers the detail. (`{id}.zip` starts a download.)',
  })
  @ApiParam({ name: 'resource', description: 'the resource id, optionally followed by `.json`' })
  @ApiOkResponse({ type: ResourceDetailDto })
  @ApiErrors({
    400: 'token header missing; target lacks resource_detail; format other than json',
    401: 'invalid token',
    403: 'no access to the resource',
    404: 'invalid target name; resource id unknown for the user',
    410: 'resource no longer available',
    501: "the target's connector is not available in this version",
  })
  detailOrDownload(
    @Req() request: Request,
    @Param('targetName') targetName: string,
    @Param('resource') segment: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
  ) {
    const { id, format } = parseResourceSegment(segment, ['json', 'zip']);
    if (format === 'zip') {
      throw new ServiceError(
        501,
        'PresQT Error: downloads are not available in this version of the service yet.',
      );
    }
    return this.resources.detail(request, targetName, id, token);
  }
}
