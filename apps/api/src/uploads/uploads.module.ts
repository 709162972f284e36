import { Module } from '@nestjs/common';
import { JobEndpointsModule } from '../jobs/job-endpoints.module';
import { AbandonedUploads } from './abandoned-uploads';
import { UploadReservations } from './upload-reservations';
import { UploadsService } from './uploads.service';

/** Uploads of BagIt packages: received, inspected whole and handed to a worker. */
@Module({
  imports: [JobEndpointsModule],
  providers: [UploadsService, UploadReservations, AbandonedUploads],
  exports: [UploadsService],
})
export class UploadsModule {}
