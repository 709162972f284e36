import { Module } from '@nestjs/common';
import { JobStarter } from './job-starter.service';
import { JobStatusController } from './job-status.controller';

/** Job status and cancel endpoints, and the starter every job-starting feature uses. */
@Module({ controllers: [JobStatusController], providers: [JobStarter], exports: [JobStarter] })
export class JobEndpointsModule {}
