import { Module } from '@nestjs/common';
import { JobEndpointsModule } from '../jobs/job-endpoints.module';
import { TransfersModule } from '../transfers/transfers.module';
import { UploadsModule } from '../uploads/uploads.module';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

/**
 * Listing, detail and download of resources. Uploads and transfers are features of their own; they start on
 * this feature's paths (a POST, told apart by its body), so this controller hands them on.
 */
@Module({
  imports: [JobEndpointsModule, UploadsModule, TransfersModule],
  controllers: [ResourcesController],
  providers: [ResourcesService],
})
export class ResourcesModule {}
