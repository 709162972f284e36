import { join } from 'node:path';
import { projectRoot } from '@app/common';
import { setting, Settings } from '@app/config';

/** The targets file, and what every target's connector shares. */
export class TargetSettings extends Settings('Targets', {
  file: setting.path('TARGETS_FILE', {
    default: join(projectRoot(), 'config', 'targets.json'),
    shownDefault: '`config/targets.json`',
    doc: 'the targets file ([targets-file.md](targets-file.md))',
  }),
  perPage: setting.int('PER_PAGE', {
    min: 1,
    max: 100,
    default: 10,
    doc: "page size of resource collections (a target's `options.per_page` overrides it)",
  }),
  statusTimeoutMs: setting.int('STATUS_TIMEOUT_MS', {
    min: 100,
    max: 60_000,
    default: 5000,
    doc: 'timeout of the upstream probes of `GET /api_v1/statuses/`',
  }),
}) {}
