import { join } from 'node:path';
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { JobFiles } from './job-files';
import { LocalJobFiles } from './local-job-files';
import { S3JobFiles } from './s3-job-files';

/** The job-file store the configuration chooses (JOB_FILES), for the API and the worker alike. */
export function jobFilesFor(config: AppConfig): JobFiles {
  const settings = config.jobFiles;
  if (settings.kind === 'local') return new LocalJobFiles(join(config.dataDir, 'jobs'));
  // one bucket can serve several deployments, as one Redis can: each under its own prefix
  return new S3JobFiles(settings, `${config.redisPrefix}/jobs`);
}

@Global()
@Module({})
export class JobFilesModule implements OnApplicationShutdown {
  constructor(@Inject(JobFiles) private readonly files: JobFiles) {}

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: JobFilesModule,
      providers: [{ provide: JobFiles, useFactory: () => jobFilesFor(config) }],
      exports: [JobFiles],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.files.close();
  }
}
