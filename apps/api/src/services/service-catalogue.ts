import { FAIRSHAKE_RUBRICS, RUBRICS } from '../assessment/rubrics';

interface ServiceEndpoint {
  name: string;
  /** below the API's base URL */
  path: string;
  method: 'GET' | 'POST';
}

/** The services this deployment offers besides the targets, by their path segment, with their endpoints. */
export interface ServiceDescription {
  name: string;
  readable_name: string;
  /** set for a name the PresQT web client uses for one of our services: that service's name */
  alias_of?: string;
  endpoints: ServiceEndpoint[];
}

export const SERVICE_CATALOGUE: readonly ServiceDescription[] = [
  {
    name: 'presqt',
    readable_name: 'Keyword Enhancement',
    endpoints: [
      { name: 'Keyword Enhancement', path: '/api_v1/services/presqt/keyword_enhancement/', method: 'POST' },
    ],
  },
  {
    name: 'emulation',
    readable_name: 'Emulation (EaaSI proposals)',
    endpoints: [{ name: 'Proposals', path: '/api_v1/services/emulation/proposals/', method: 'POST' }],
  },
  {
    name: 'fairshare',
    readable_name: 'FAIRshare',
    endpoints: [
      { name: 'Tests', path: '/api_v1/services/fairshare/evaluator/', method: 'GET' },
      { name: 'Evaluate', path: '/api_v1/services/fairshare/evaluator/', method: 'POST' },
    ],
  },
  {
    name: 'assessment',
    readable_name: 'FAIR Assessment',
    endpoints: Object.keys(RUBRICS).map((id) => ({
      name: `Rubric ${id}`,
      path: `/api_v1/services/assessment/rubric/${id}/`,
      method: 'GET' as const,
    })),
  },
  // the names the PresQT web client knows, beside ours (docs/web-client.md)
  {
    name: 'keyword_enhancement',
    readable_name: 'Keyword Enhancement',
    alias_of: 'presqt',
    endpoints: [
      { name: 'Keyword Enhancement', path: '/api_v1/services/presqt/keyword_enhancement/', method: 'POST' },
    ],
  },
  {
    name: 'eaasi',
    readable_name: 'EaaSI',
    alias_of: 'emulation',
    endpoints: [{ name: 'Proposals', path: '/api_v1/services/eaasi/proposals/', method: 'POST' }],
  },
  {
    name: 'fairshake',
    readable_name: 'FAIRshake',
    alias_of: 'assessment',
    endpoints: Object.keys(FAIRSHAKE_RUBRICS).map((id) => ({
      name: `Rubric ${id}`,
      path: `/api_v1/services/fairshake/rubric/${id}/`,
      method: 'GET' as const,
    })),
  },
];
