import { Module } from '@nestjs/common';
import { JobEndpointsModule } from '../jobs/job-endpoints.module';
import { TransfersService } from './transfers.service';

/** Transfers of a resource from one target to another, checked and handed to a worker. */
@Module({ imports: [JobEndpointsModule], providers: [TransfersService], exports: [TransfersService] })
export class TransfersModule {}
