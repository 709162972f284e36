import { Module } from '@nestjs/common';
import { JobEndpointsModule } from '../jobs/job-endpoints.module';
import { UploadReservations } from './upload-reservations';
import { UploadsService } from './uploads.service';

/** Uploads of BagIt packages: received, inspected whole and handed to a worker. */
@Module({
  imports: [JobEndpointsModule],
  providers: [UploadsService, UploadReservations],
  exports: [UploadsService],
})
export class UploadsModule {}
