import { PathLimits, ZipLimits } from '@app/archive';
import { ProcessSettings, type AnySettingsClass } from '@app/config';
import { UpstreamSettings } from '@app/connectors';
import { FairshareSettings } from '@app/fairshare';
import { HashingSettings } from '@app/fixity';
import { JobFilesSettings } from '@app/job-files';
import { JobSettings, RedisSettings } from '@app/jobs';
import { KeywordSettings } from '@app/keywords';
import { LogSettings } from '@app/observability';
import { TargetSettings } from '@app/targets';
import { AdminSettings } from './admin/admin.settings';
import { FairshakeSettings } from './assessment/fairshake.settings';
import { HttpSettings } from './common/http.settings';
import { RateLimitSettings } from './common/rate-limit.settings';
import { RequestLimits } from './common/request-limits.settings';
import { EmulationSettings } from './emulation/emulation.settings';
import { UploadSettings } from './uploads/upload.settings';

/** Every setting the API reads: each lib's own, and those of the API's features. */
export const API_SETTINGS: readonly AnySettingsClass[] = [
  ProcessSettings,
  HttpSettings,
  RedisSettings,
  JobSettings,
  JobFilesSettings,
  TargetSettings,
  UpstreamSettings,
  RequestLimits,
  UploadSettings,
  PathLimits,
  ZipLimits,
  HashingSettings,
  RateLimitSettings,
  AdminSettings,
  LogSettings,
  KeywordSettings,
  FairshareSettings,
  EmulationSettings,
  FairshakeSettings,
];
