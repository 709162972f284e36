import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { LinkBuilder } from '../common/link-builder';

@ApiTags('api')
@Controller('api_v1')
export class ApiRootController {
  constructor(private readonly links: LinkBuilder) {}

  @Get()
  @ApiOperation({ summary: 'Entry points of the API' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: Object.fromEntries(
        ['targets', 'statuses', 'services', 'docs'].map((key) => [key, { type: 'string' }]),
      ),
    },
  })
  root(@Req() request: Request): Record<string, string> {
    const links = this.links.for(request);
    return {
      targets: links.url('/api_v1/targets/'),
      statuses: links.url('/api_v1/statuses/'),
      services: links.url('/api_v1/services/'),
      docs: links.url('/api/docs'),
    };
  }
}
