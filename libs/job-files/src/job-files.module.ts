import { join } from 'node:path';
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ProcessSettings, type LoadedSettings } from '@app/config';
import { RedisSettings } from '@app/jobs';
import { JobFiles } from './job-files';
import { JobFilesSettings } from './job-files.settings';
import { LocalJobFiles } from './local-job-files';

/** The job-file store the configuration chooses (JOB_FILES), for the API and the worker alike. */
export async function jobFilesFor(settings: LoadedSettings): Promise<JobFiles> {
  const store = settings.get(JobFilesSettings).store;
  if (store.kind === 'local')
    return new LocalJobFiles(join(settings.get(ProcessSettings).dataDir, 'jobs'), store.accelRedirect);
  // loaded only when chosen: the AWS SDK costs every process start-up time and some 20 MB
  const { S3JobFiles } = await import('./s3-job-files');
  // one bucket can serve several deployments, as one Redis can: each under its own prefix
  return new S3JobFiles(store, `${settings.get(RedisSettings).prefix}/jobs`);
}

@Global()
@Module({})
export class JobFilesModule implements OnApplicationShutdown {
  constructor(@Inject(JobFiles) private readonly files: JobFiles) {}

  static forRoot(settings: LoadedSettings): DynamicModule {
    return {
      module: JobFilesModule,
      providers: [{ provide: JobFiles, useFactory: () => jobFilesFor(settings) }],
      exports: [JobFiles],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.files.close();
  }
}
