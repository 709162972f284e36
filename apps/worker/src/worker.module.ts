import { DynamicModule, Module, type Type } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { JobFilesModule } from '@app/job-files';
import { JobsModule, type JobKind } from '@app/jobs';
import { FairshareModule } from '@app/fairshare';
import { KeywordsModule } from '@app/keywords';
import { Mailer } from '@app/mail';
import { HealthModule, LoggingModule, MetricsModule } from '@app/observability';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { DownloadJob } from './jobs/download.job';
import { TransferJob } from './jobs/transfer.job';
import { UploadJob } from './jobs/upload.job';
import { JobJanitor } from './jobs/job-janitor';
import { JOB_HANDLERS, type JobHandler } from './jobs/job-handler';
import { JobRunner, outboxDir } from './jobs/job-runner';
import { QueueReadiness } from './queue-readiness';

/** The handler of each kind of job: a kind without one does not compile. */
const HANDLERS: { [K in JobKind]: Type<JobHandler<K>> } = {
  download: DownloadJob,
  upload: UploadJob,
  transfer: TransferJob,
};

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
        ...Object.values(HANDLERS),
        {
          provide: JOB_HANDLERS,
          inject: Object.values(HANDLERS),
          useFactory: (...handlers: JobHandler[]) => handlers,
        },
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
