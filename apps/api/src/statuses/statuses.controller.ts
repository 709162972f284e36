import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TargetStatusDto } from './dto/target-status.dto';
import { StatusesService, TargetStatusReport } from './statuses.service';

@ApiTags('targets')
@Controller('api_v1/statuses')
export class StatusesController {
  constructor(private readonly statuses: StatusesService) {}

  @Get()
  @ApiOperation({ summary: "Whether each target's upstream is reachable (cached for 30 s)" })
  @ApiOkResponse({ type: [TargetStatusDto] })
  list(): Promise<TargetStatusReport[]> {
    return this.statuses.statuses();
  }
}
