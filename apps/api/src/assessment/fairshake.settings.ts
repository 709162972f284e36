import { setting, Settings } from '@app/config';

/** Where assessments are also registered (docs/behaviour.md#assessment); both unset: kept in Redis only. */
export class FairshakeSettings extends Settings(
  'FAIRshake',
  {
    url: setting.url('FAIRSHAKE_URL', {
      example: 'https://fairshake.cloud',
      base: true,
      doc: 'with `FAIRSHAKE_TOKEN`: assessments are also registered at this FAIRshake; one without the other stops the process',
    }),
    token: setting.text('FAIRSHAKE_TOKEN', {
      secret: true,
      expected: 'a FAIRshake API token',
      doc: 'sent as `Authorization: Token <token>`; never logged',
    }),
    projectId: setting.int('FAIRSHAKE_PROJECT_ID', {
      min: 1,
      unit: 'the id of a project at FAIRshake',
      doc: 'the FAIRshake project that registered digital objects and assessments belong to',
    }),
    timeoutMs: setting.int('FAIRSHAKE_TIMEOUT_MS', {
      min: 100,
      max: 120_000,
      default: 10_000,
      doc: 'timeout of each FAIRshake request',
    }),
  },
  (_values, rules) => {
    if (!rules.given('url') && !rules.given('token')) return;
    const together = '(the two are set together or not at all)';
    rules.require('url', `FAIRSHAKE_TOKEN is set ${together}`);
    rules.require('token', `FAIRSHAKE_URL is set ${together}`);
  },
) {
  /** the FAIRshake that assessments are registered at; undefined: none */
  get account(): FairshakeAccount | undefined {
    const { url, token, projectId, timeoutMs } = this;
    return url && token ? { url, token, projectId, timeoutMs } : undefined;
  }
}

export interface FairshakeAccount {
  /** base URL of the FAIRshake API, without a trailing slash */
  url: string;
  /** sent as `Authorization: Token <token>`; never logged */
  token: string;
  /** the FAIRshake project that registered digital objects and assessments belong to */
  projectId: number | undefined;
  timeoutMs: number;
}
