export interface GitHubOptions {
  /** the REST API's base URL: `https://api.github.com`, or `https://<host>/api/v3` for GitHub Enterprise Server */
  api_url?: string;
  /** whether the repositories that uploads and transfers create are public; private unless true */
  public?: boolean;
  /** page size of listings; GitHub serves at most 100 a page */
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://api.github.com';
/** GitHub's largest `per_page` (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api). */
export const MAX_PER_PAGE = 100;
const KNOWN_OPTIONS = ['api_url', 'public', 'per_page'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The problems of a base URL, never quoting it: a URL may carry credentials. */
function apiUrlProblems(value: unknown): string[] {
  if (typeof value !== 'string') return ['options.api_url must be a string (an http or https URL)'];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['options.api_url is not a valid URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push('options.api_url must use http or https');
  if (url.username !== '' || url.password !== '')
    problems.push('options.api_url must not carry credentials: the token comes from each request');
  if (url.search !== '' || url.hash !== '')
    problems.push('options.api_url must not have a query or a fragment');
  return problems;
}

export function validateOptions(options: unknown): string[] {
  if (!isRecord(options)) return ['options must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key))
      problems.push(`options.${key} is not a known option (${KNOWN_OPTIONS.join(', ')})`);
  }
  if (options.api_url !== undefined) problems.push(...apiUrlProblems(options.api_url));
  if (options.public !== undefined && typeof options.public !== 'boolean')
    problems.push('options.public must be true or false');
  const perPage = options.per_page;
  if (
    perPage !== undefined &&
    !(Number.isInteger(perPage) && Number(perPage) >= 1 && Number(perPage) <= MAX_PER_PAGE)
  )
    problems.push(`options.per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
  return problems;
}
