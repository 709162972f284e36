import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@app/config';
import { JobsModule } from '@app/jobs';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { JobStatusController } from './jobs/job-status.controller';
import { ApiErrorFilter } from './common/api-error.filter';
import { AssessmentModule } from './assessment/assessment.module';
import { CommonModule } from './common/common.module';
import { EmulationModule } from './emulation/emulation.module';
import { KeywordEndpointsModule } from './keywords/keyword-endpoints.module';
import { ResourcesModule } from './resources/resources.module';
import { ApiRootController } from './root/api-root.controller';
import { ServicesController } from './services/services.controller';
import { StatusesModule } from './statuses/statuses.module';
import { TargetsController } from './targets/targets.controller';

@Module({})
export class ApiModule {
  static register(config: AppConfig, targets: TargetsRegistry): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        TargetsModule.forRoot(targets),
        JobsModule.forRoot(config, { commandTimeoutMs: config.redisTimeoutMs }),
        CommonModule,
        StatusesModule,
        ResourcesModule,
        AssessmentModule,
        EmulationModule,
        KeywordEndpointsModule,
      ],
      controllers: [ApiRootController, ServicesController, TargetsController, JobStatusController],
      providers: [{ provide: APP_FILTER, useClass: ApiErrorFilter }],
    };
  }
}
