import { Module } from '@nestjs/common';
import { FairshareModule } from '@app/fairshare';
import { AssessmentController } from './assessment.controller';
import { AssessmentService } from './assessment.service';
import { AssessmentStore } from './assessment.store';
import { FairshakeAliasController } from './fairshake-alias.controller';
import { FairshakeAliasService } from './fairshake-alias.service';
import { FairshakeClient } from './fairshake.client';
import { FairshakeSettings } from './fairshake.settings';

/** The FAIR assessment service (docs/behaviour.md#assessment): rubrics, and assessments kept in Redis and optionally at FAIRshake. */
@Module({
  imports: [FairshareModule],
  controllers: [AssessmentController, FairshakeAliasController],
  providers: [
    AssessmentService,
    FairshakeAliasService,
    AssessmentStore,
    {
      provide: FairshakeClient,
      inject: [FairshakeSettings],
      useFactory: ({ account }: FairshakeSettings) => (account ? new FairshakeClient(account) : null),
    },
  ],
})
export class AssessmentModule {}
