import { Module } from '@nestjs/common';
import { AnnouncementsController } from './announcements.controller';
import { ApiRootController } from './api-root.controller';

/** The API's entry point, linking to the rest, and the announcement web clients show. */
@Module({ controllers: [ApiRootController, AnnouncementsController] })
export class ApiRootModule {}
