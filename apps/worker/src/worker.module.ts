import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, ProcessSettings, type LoadedSettings } from '@app/config';
import { JobFilesModule } from '@app/job-files';
import { JobsModule } from '@app/jobs';
import { FairshareModule } from '@app/fairshare';
import { KeywordsModule } from '@app/keywords';
import { Mailer, MailSettings } from '@app/mail';
import { HealthModule, LoggingModule, MetricsModule } from '@app/observability';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { JOB_HANDLER_PROVIDERS } from './jobs/job-handlers';
import { JobJanitor } from './jobs/job-janitor';
import { JobRunner, outboxDir } from './jobs/job-runner';
import { TargetSessions } from './jobs/target-sessions';
import { QueueReadiness } from './queue-readiness';

@Module({})
export class WorkerModule {
  static register(settings: LoadedSettings, targets: TargetsRegistry): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        LoggingModule.forRoot(settings, 'worker'),
        ConfigModule.forRoot(settings),
        TargetsModule.forRoot(targets),
        JobsModule.forRoot(settings),
        JobFilesModule.forRoot(settings),
        KeywordsModule,
        FairshareModule,
        HealthModule,
        MetricsModule,
      ],
      providers: [
        QueueReadiness,
        TargetSessions,
        ...JOB_HANDLER_PROVIDERS,
        {
          provide: Mailer,
          inject: [MailSettings, ProcessSettings],
          useFactory: (mail: MailSettings, processSettings: ProcessSettings) =>
            new Mailer({ smtpUrl: mail.smtpUrl, outboxDir: outboxDir(processSettings) }),
        },
        JobRunner,
        JobJanitor,
      ],
    };
  }
}
