import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AssessmentController } from './assessment.controller';
import { AssessmentService } from './assessment.service';
import { AssessmentStore } from './assessment.store';
import { FairshakeClient } from './fairshake.client';

/** The FAIR assessment service (docs/behaviour.md#assessment): rubrics, and assessments kept in Redis and optionally at FAIRshake. */
@Module({
  controllers: [AssessmentController],
  providers: [
    AssessmentService,
    AssessmentStore,
    {
      provide: FairshakeClient,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.fairshake ? new FairshakeClient(config.fairshake) : null),
    },
  ],
})
export class AssessmentModule {}
