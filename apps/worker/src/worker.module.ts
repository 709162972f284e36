import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { JobFilesModule } from '@app/job-files';
import { JobsModule } from '@app/jobs';
import { FairshareModule } from '@app/fairshare';
import { KeywordsModule } from '@app/keywords';
import { Mailer } from '@app/mail';
import { HealthModule, LoggingModule, MetricsModule } from '@app/observability';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { JOB_HANDLER_PROVIDERS } from './jobs/job-handlers';
import { JobJanitor } from './jobs/job-janitor';
import { JobRunner, outboxDir } from './jobs/job-runner';
import { QueueReadiness } from './queue-readiness';

@Module({})
export class WorkerModule {
  static register(config: AppConfig, targets: TargetsRegistry): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        LoggingModule.forRoot(config, 'worker'),
        ConfigModule.forRoot(config),
        TargetsModule.forRoot(targets),
        JobsModule.forRoot(config),
        JobFilesModule.forRoot(config),
        KeywordsModule,
        FairshareModule,
        HealthModule,
        MetricsModule,
      ],
      providers: [
        QueueReadiness,
        ...JOB_HANDLER_PROVIDERS,
        {
          provide: Mailer,
          useFactory: () => new Mailer({ smtpUrl: config.smtpUrl, outboxDir: outboxDir(config) }),
        },
        JobRunner,
        JobJanitor,
      ],
    };
  }
}
