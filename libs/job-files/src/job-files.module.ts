import { join } from 'node:path';
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { JobFiles } from './job-files';
import { LocalJobFiles } from './local-job-files';

/** The job-file store the configuration chooses (JOB_FILES), for the API and the worker alike. */
export async function jobFilesFor(config: AppConfig): Promise<JobFiles> {
  const settings = config.jobFiles;
  if (settings.kind === 'local') return new LocalJobFiles(join(config.dataDir, 'jobs'));
  // loaded only when chosen: the AWS SDK costs every process start-up time and some 20 MB
  const { S3JobFiles } = await import('./s3-job-files');
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
