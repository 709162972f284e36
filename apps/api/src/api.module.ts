import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, type LoadedSettings } from '@app/config';
import { JobFilesModule } from '@app/job-files';
import { JobsModule, RedisSettings } from '@app/jobs';
import { HealthModule, LoggingModule, MetricsModule } from '@app/observability';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { JobEndpointsModule } from './jobs/job-endpoints.module';
import { AdminModule } from './admin/admin.module';
import { AdminSettings } from './admin/admin.settings';
import { RateLimitsModule } from './common/rate-limits';
import { RateLimitSettings } from './common/rate-limit.settings';
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
  static register(settings: LoadedSettings, targets: TargetsRegistry): DynamicModule {
    const redis = settings.get(RedisSettings);
    const adminToken = settings.get(AdminSettings).token;
    return {
      module: ApiModule,
      imports: [
        LoggingModule.forRoot(settings, 'api'),
        ConfigModule.forRoot(settings),
        TargetsModule.forRoot(targets),
        JobsModule.forRoot(settings, { commandTimeoutMs: redis.timeoutMs }),
        JobFilesModule.forRoot(settings),
        CommonModule,
        RateLimitsModule.forRoot(settings.get(RateLimitSettings), redis.prefix),
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
        ...(adminToken ? [AdminModule.forRoot(adminToken)] : []),
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiErrorFilter }],
    };
  }
}
