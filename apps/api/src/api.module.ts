import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@app/config';
import { JobFilesModule } from '@app/job-files';
import { JobsModule } from '@app/jobs';
import { HealthModule, LoggingModule, MetricsModule } from '@app/observability';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { JobEndpointsModule } from './jobs/job-endpoints.module';
import { AdminModule } from './admin/admin.module';
import { RateLimitsModule } from './common/rate-limits';
import { ApiErrorFilter } from './common/api-error.filter';
import { AssessmentModule } from './assessment/assessment.module';
import { BagToolModule } from './bag-tool/bag-tool.module';
import { CommonModule } from './common/common.module';
import { EmulationModule } from './emulation/emulation.module';
import { FairshareEndpointsModule } from './fairshare/fairshare-endpoints.module';
import { KeywordEndpointsModule } from './keywords/keyword-endpoints.module';
import { ResourcesModule } from './resources/resources.module';
import { ApiRootModule } from './root/api-root.module';
import { ServicesModule } from './services/services.module';
import { StatusesModule } from './statuses/statuses.module';
import { TargetEndpointsModule } from './targets/target-endpoints.module';

@Module({})
export class ApiModule {
  static register(config: AppConfig, targets: TargetsRegistry): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        LoggingModule.forRoot(config, 'api'),
        ConfigModule.forRoot(config),
        TargetsModule.forRoot(targets),
        JobsModule.forRoot(config, { commandTimeoutMs: config.redisTimeoutMs }),
        JobFilesModule.forRoot(config),
        CommonModule,
        RateLimitsModule.forRoot(config.rateLimits, config.redisPrefix),
        ApiRootModule,
        TargetEndpointsModule,
        StatusesModule,
        ResourcesModule,
        AssessmentModule,
        BagToolModule,
        EmulationModule,
        FairshareEndpointsModule,
        KeywordEndpointsModule,
        ServicesModule,
        JobEndpointsModule,
        HealthModule,
        MetricsModule,
        ...(config.adminToken ? [AdminModule.forRoot(config.adminToken)] : []),
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiErrorFilter }],
    };
  }
}
