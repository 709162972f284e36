import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ServiceError } from '@app/common';
import { ApiErrors } from '../common/dto/error.dto';
import { Link, LinkBuilder } from '../common/link-builder';
import { ServiceDto } from './dto/service.dto';
import { SERVICE_CATALOGUE, ServiceDescription } from './service-catalogue';

interface ServiceSummary {
  name: string;
  readable_name: string;
  alias_of?: string;
  links: Link[];
}

@ApiTags('services')
@Controller('api_v1/services')
export class ServicesController {
  constructor(private readonly links: LinkBuilder) {}

  @Get()
  @ApiOperation({ summary: 'List the services besides the targets' })
  @ApiOkResponse({ type: [ServiceDto] })
  list(@Req() request: Request): ServiceSummary[] {
    return SERVICE_CATALOGUE.map((service) => this.present(request, service));
  }

  @Get(':serviceName')
  @ApiOperation({ summary: 'Show one service' })
  @ApiOkResponse({ type: ServiceDto })
  @ApiErrors({ 404: 'invalid service name' })
  detail(@Req() request: Request, @Param('serviceName') serviceName: string): ServiceSummary {
    const service = SERVICE_CATALOGUE.find(({ name }) => name === serviceName);
    if (!service) {
      const valid = SERVICE_CATALOGUE.map(({ name }) => name).join(', ');
      throw ServiceError.notFound(
        `PresQT Error: Invalid Service Name '${serviceName}'. Valid names: ${valid}.`,
      );
    }
    return this.present(request, service);
  }

  private present(request: Request, service: ServiceDescription): ServiceSummary {
    const link = (name: string, path: string, method: Link['method']): Link => ({
      name,
      link: this.links.for(request).url(path),
      method,
    });
    return {
      name: service.name,
      readable_name: service.readable_name,
      ...(service.alias_of === undefined ? {} : { alias_of: service.alias_of }),
      links: [
        link('Detail', `/api_v1/services/${service.name}/`, 'GET'),
        ...service.endpoints.map((endpoint) => link(endpoint.name, endpoint.path, endpoint.method)),
      ],
    };
  }
}
