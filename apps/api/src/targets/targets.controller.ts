import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ServiceError } from '@app/common';
import { TargetsRegistry } from '@app/targets';
import { ApiErrors } from '../common/dto/error.dto';
import { LinkBuilder } from '../common/link-builder';
import { TargetDto } from './dto/target.dto';
import { presentTarget, targetLinks } from './target.presenter';

@ApiTags('targets')
@Controller('api_v1/targets')
export class TargetsController {
  constructor(
    private readonly registry: TargetsRegistry,
    private readonly links: LinkBuilder,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the targets (repositories) this service connects to' })
  @ApiOkResponse({ type: [TargetDto] })
  list(@Req() request: Request) {
    return this.registry.targets.map((target) =>
      presentTarget(target, targetLinks(this.links.for(request), target, 'collection')),
    );
  }

  @Get(':targetName')
  @ApiOperation({ summary: 'Show one target with links to its resources' })
  @ApiOkResponse({ type: TargetDto })
  @ApiErrors({ 404: 'invalid target name' })
  detail(@Req() request: Request, @Param('targetName') targetName: string) {
    const target = this.registry.find(targetName);
    if (!target) throw ServiceError.notFound(`PresQT Error: Invalid Target Name '${targetName}'`);
    return presentTarget(target, targetLinks(this.links.for(request), target, 'detail'));
  }
}
