import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HttpSettings } from '../common/http.settings';
import { AnnouncementDto } from './announcement.dto';

/**
 * The banner the PresQT web client polls at the server's root, outside `api_v1` (the original served a static
 * file there); its text comes from ANNOUNCEMENT.
 */
@ApiTags('api')
@Controller()
export class AnnouncementsController {
  constructor(private readonly settings: HttpSettings) {}

  @Get('announcements.json')
  @ApiOperation({ summary: 'The announcement web clients show as a banner (ANNOUNCEMENT)' })
  @ApiOkResponse({ type: AnnouncementDto })
  announcement(): AnnouncementDto {
    const message = this.settings.announcement ?? '';
    return { show: message !== '', message };
  }
}
