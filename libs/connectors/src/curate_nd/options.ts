import { checkOptions } from '../option-rules';

export interface CurateNdOptions {
  /** the API's base URL; default the public service */
  api_url?: string;
  /** results per page of a listing; default the service's page size, at most MAX_PER_PAGE */
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://curate.nd.edu/api';
/**
 * CurateND refuses a `rows` above Blacklight's max_per_page (100 unless configured otherwise):
 * Api::QueryBuilder#valid_request? in ndlib/curate_nd app/services/api/query_builder.rb.
 */
export const MAX_PER_PAGE = 100;
/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    per_page: { kind: 'integer', min: 1, max: MAX_PER_PAGE },
  });
}
