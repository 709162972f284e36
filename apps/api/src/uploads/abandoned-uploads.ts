import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ProcessSettings } from '@app/config';
import { removeAbandonedUploads } from '@app/job-files';
import { JobSettings } from '@app/jobs';

/**
 * Every JOB_SWEEP_MS, removes packages that an API process on this host died while receiving. Workers do
 * the same where they share the data directory; on a host of its own (multi-host deployment) only the API
 * processes see it.
 */
@Injectable()
export class AbandonedUploads implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AbandonedUploads');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly processSettings: ProcessSettings,
    private readonly jobs: JobSettings,
  ) {}

  onApplicationBootstrap(): void {
    const sweep = () =>
      void removeAbandonedUploads(this.processSettings.dataDir, this.jobs.ttlSeconds * 1000).catch(
        (error: Error) => this.logger.warn(`could not remove abandoned uploads: ${error.message}`),
      );
    sweep();
    this.timer = setInterval(sweep, this.jobs.sweepMs);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
