import { PathLimits, ZipLimits } from '@app/archive';
import { ProcessSettings, type AnySettingsClass, setting, Settings } from '@app/config';
import { UpstreamSettings } from '@app/connectors';
import { FairshareSettings } from '@app/fairshare';
import { HashingSettings } from '@app/fixity';
import { JobFilesSettings } from '@app/job-files';
import { JobSettings, RedisSettings } from '@app/jobs';
import { KeywordSettings } from '@app/keywords';
import { MailSettings } from '@app/mail';
import { LogSettings } from '@app/observability';
import { TargetSettings } from '@app/targets';

/** How much one worker process takes on, and where it answers health checks. */
export class WorkerSettings extends Settings('The worker', {
  healthPort: setting.int('WORKER_HEALTH_PORT', {
    min: 0,
    max: 65535,
    default: 8001,
    doc: "the worker's own HTTP port for `/health/*` and `/metrics` (`0`: any free port, logged at start)",
  }),
  jobConcurrency: setting.int('JOB_CONCURRENCY', {
    min: 1,
    max: 64,
    default: 2,
    doc: 'jobs of each kind one worker process runs at once',
  }),
  fileTransfers: setting.int('FILE_TRANSFERS', {
    min: 1,
    max: 64,
    default: 4,
    doc: "files one job moves at once (like rclone's `--transfers`)",
  }),
}) {}

/** Every setting the worker reads: each lib's own, and the worker's. */
export const WORKER_SETTINGS: readonly AnySettingsClass[] = [
  ProcessSettings,
  WorkerSettings,
  RedisSettings,
  JobSettings,
  JobFilesSettings,
  TargetSettings,
  UpstreamSettings,
  PathLimits,
  ZipLimits,
  HashingSettings,
  LogSettings,
  KeywordSettings,
  FairshareSettings,
  MailSettings,
];
