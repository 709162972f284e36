import { Module } from '@nestjs/common';
import { FairshareModule } from '@app/fairshare';
import { FairshareController } from './fairshare.controller';

/** The FAIRshare evaluator service: its list of tests, and evaluations by the FAIR Evaluator. */
@Module({ imports: [FairshareModule], controllers: [FairshareController] })
export class FairshareEndpointsModule {}
