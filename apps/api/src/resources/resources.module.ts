import { Module } from '@nestjs/common';
import { JobStarter } from '../jobs/job-starter.service';
import { TransfersService } from '../transfers/transfers.service';
import { UploadReservations } from '../uploads/upload-reservations';
import { UploadsService } from '../uploads/uploads.service';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

@Module({
  controllers: [ResourcesController],
  providers: [ResourcesService, JobStarter, TransfersService, UploadsService, UploadReservations],
})
export class ResourcesModule {}
