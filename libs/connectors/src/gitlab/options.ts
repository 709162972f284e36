export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface GitlabOptions {
  /** the REST API's base URL, `https://gitlab.com/api/v4` unless a self-hosted GitLab is meant */
  api_url?: string;
  /** the visibility of the projects the connector makes */
  visibility?: Visibility;
  /** the page size of listings; GitLab takes at most 100 */
  per_page?: number;
  /** the file bytes one commit takes at most; larger writes are split over several commits */
  commit_batch_bytes?: number;
}

export const DEFAULT_API_URL = 'https://gitlab.com/api/v4';
/**
 * The commits API takes the files as base64 in one JSON body; GitLab documents no limit, but the body passes
 * through a proxy (omnibus nginx takes 250 MB) and is parsed whole by Rails, so a commit carries at most this
 * many file bytes (~67 MB of body).
 */
export const DEFAULT_COMMIT_BATCH_BYTES = 50 << 20;
/** GitLab's largest `per_page`. */
export const MAX_PER_PAGE = 100;

const KNOWN_OPTIONS = ['api_url', 'visibility', 'per_page', 'commit_batch_bytes'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function apiUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'options.api_url must be a string (an http or https URL)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'options.api_url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'options.api_url must be an http or https URL';
  // credentials belong in the token header, and a query or fragment would be lost on every request
  if (url.username || url.password) return 'options.api_url must not contain a user name or password';
  if (url.search || url.hash) return 'options.api_url must not have a query or fragment';
  return undefined;
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && Number(value) >= min && Number(value) <= max;
}

/** Every problem of a targets-file entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  if (!isRecord(options)) return ['options must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key))
      problems.push(`options.${key} is not a known option (${KNOWN_OPTIONS.join(', ')})`);
  }
  if (options.api_url !== undefined) {
    const problem = apiUrlProblem(options.api_url);
    if (problem) problems.push(problem);
  }
  if (options.visibility !== undefined && !(VISIBILITIES as readonly unknown[]).includes(options.visibility))
    problems.push(`options.visibility must be one of ${VISIBILITIES.join(', ')}`);
  if (options.per_page !== undefined && !isIntegerIn(options.per_page, 1, MAX_PER_PAGE))
    problems.push(`options.per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
  if (
    options.commit_batch_bytes !== undefined &&
    !isIntegerIn(options.commit_batch_bytes, 1, Number.MAX_SAFE_INTEGER)
  )
    problems.push('options.commit_batch_bytes must be a positive integer');
  return problems;
}
