import { setting, Settings } from '@app/config';

/** The EaaSI environment proposer (docs/behaviour.md#emulation). */
export class EmulationSettings extends Settings('Emulation', {
  apiUrl: setting.url('EMULATION_API_URL', {
    example: 'https://eaasi-portal.emulation.cloud/environment-proposer/api/v1',
    base: true,
    doc: "the EaaSI environment proposer's API (`.../environment-proposer/api/v1`); unset: the proposal endpoints answer `503`",
  }),
  timeoutMs: setting.int('EMULATION_TIMEOUT_MS', {
    min: 100,
    max: 300_000,
    default: 15_000,
    doc: 'timeout of each request to the proposer',
  }),
}) {}
