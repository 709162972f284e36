import { setting, Settings } from '@app/config';

/** How long a request may take to arrive, and how slowly its body may come (docs/limits.md#request-bodies). */
export class RequestLimits extends Settings('Requests', {
  timeoutMs: setting.int('REQUEST_TIMEOUT_MS', {
    min: 1000,
    default: 2 * 3600 * 1000,
    shownDefault: '`7200000` (2 h)',
    doc: 'how long a request (an upload) may take to arrive whole; past it, 408 (checked every 30 s)',
  }),
  minBodyBytesPerSecond: setting.int('REQUEST_BODY_MIN_RATE', {
    min: 1,
    unit: 'bytes a second',
    default: 1024,
    doc: 'the slowest a request body may come, in bytes a second over each 10 s the API reads it; slower, 408',
  }),
}) {}
