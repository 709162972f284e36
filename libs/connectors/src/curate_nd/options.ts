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
const KNOWN_OPTIONS = ['api_url', 'per_page'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}

// Values are never quoted: a URL may carry credentials, and problems may be logged.
export function validateOptions(options: unknown): string[] {
  if (!isRecord(options)) return ['options must be an object'];
  const problems = Object.keys(options)
    .filter((key) => !KNOWN_OPTIONS.includes(key))
    .map((key) => `options.${key} is not a known option (${KNOWN_OPTIONS.join(', ')})`);
  if (options.api_url !== undefined && !isHttpUrl(options.api_url))
    problems.push('options.api_url must be an http(s) URL without user name or password');
  const perPage = options.per_page;
  if (
    perPage !== undefined &&
    !(Number.isInteger(perPage) && Number(perPage) >= 1 && Number(perPage) <= MAX_PER_PAGE)
  )
    problems.push(`options.per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
  return problems;
}
