import { setting, Settings } from '@app/config';

/** Per-token and per-address limits of job starts and listings in each window (docs/limits.md). */
export class RateLimitSettings extends Settings('Rate limits', {
  mode: setting.oneOf('RATE_LIMITS', ['on', 'off'], {
    default: 'on',
    doc: '`off` turns the limits below off (the tests and benchmarks do)',
  }),
  windowSeconds: setting.int('RATE_LIMIT_WINDOW_SECONDS', {
    min: 1,
    default: 60,
    doc: 'the window the limits count in',
  }),
  jobStartsPerToken: setting.int('RATE_LIMIT_JOB_STARTS', {
    min: 1,
    default: 20,
    doc: 'job starts (downloads, uploads, transfers) a window per token',
  }),
  jobStartsPerAddress: setting.int('RATE_LIMIT_JOB_STARTS_PER_ADDRESS', {
    min: 1,
    default: 60,
    doc: 'job starts a window per client address',
  }),
  listingsPerToken: setting.int('RATE_LIMIT_LISTINGS', {
    min: 1,
    default: 300,
    doc: 'resource listings a window per token',
  }),
  listingsPerAddress: setting.int('RATE_LIMIT_LISTINGS_PER_ADDRESS', {
    min: 1,
    default: 1200,
    doc: 'resource listings a window per client address',
  }),
}) {
  get enabled(): boolean {
    return this.mode === 'on';
  }
}
