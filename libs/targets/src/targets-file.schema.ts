import { HASH_ALGORITHMS, SEARCH_FILTERS } from '@app/connectors';
import { TARGET_ACTIONS } from './target-entry';

const names = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true };

/** JSON Schema of the targets file: an array of target entries. */
export const targetsFileSchema = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    additionalProperties: false,
    required: [
      'name',
      'readable_name',
      'status_url',
      'token_url',
      'supported_actions',
      'supported_transfer_partners',
      'supported_hash_algorithms',
      'infinite_depth',
      'search_parameters',
      'connector',
    ],
    properties: {
      name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_]*$', maxLength: 64 },
      readable_name: { type: 'string', minLength: 1 },
      status_url: { type: 'string', format: 'uri' },
      token_url: { type: 'string', format: 'uri' },
      supported_actions: {
        type: 'object',
        additionalProperties: false,
        required: [...TARGET_ACTIONS],
        properties: Object.fromEntries(TARGET_ACTIONS.map((action) => [action, { type: 'boolean' }])),
      },
      supported_transfer_partners: {
        type: 'object',
        additionalProperties: false,
        required: ['transfer_in', 'transfer_out'],
        properties: { transfer_in: names, transfer_out: names },
      },
      supported_hash_algorithms: {
        type: 'array',
        items: { enum: [...HASH_ALGORITHMS] },
        uniqueItems: true,
      },
      infinite_depth: { type: 'boolean' },
      search_parameters: { type: 'array', items: { enum: [...SEARCH_FILTERS] }, uniqueItems: true },
      connector: { type: 'string', minLength: 1 },
      options: { type: 'object' },
    },
  },
} as const;
