export interface OsfOptions {
  /** OSF API v2's base URL */
  api_url?: string;
  /** the origin of OSF's file service (WaterButler): the only other origin trusted with the token */
  files_url?: string;
  /** whether projects made by uploads and transfers are public (OSF makes them private by default) */
  public?: boolean;
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://api.osf.io/v2/';
export const DEFAULT_FILES_URL = 'https://files.osf.io/';
/** The largest page OSF serves (MAX_PAGE_SIZE in its API settings); larger sizes are cut down to it. */
export const MAX_PAGE_SIZE = 100;

const KNOWN_OPTIONS = ['api_url', 'files_url', 'public', 'per_page'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Every problem with an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  if (!isRecord(options)) return ['options must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key))
      problems.push(`options.${key} is not a known option (${KNOWN_OPTIONS.join(', ')})`);
  }
  for (const key of ['api_url', 'files_url'] as const) {
    if (options[key] !== undefined && !isHttpUrl(options[key]))
      problems.push(`options.${key} must be an http or https URL when present`);
  }
  if (options.public !== undefined && typeof options.public !== 'boolean')
    problems.push('options.public must be true or false when present');
  const perPage = options.per_page;
  if (
    perPage !== undefined &&
    !(Number.isInteger(perPage) && Number(perPage) >= 1 && Number(perPage) <= MAX_PAGE_SIZE)
  )
    problems.push(
      `options.per_page must be an integer from 1 to ${MAX_PAGE_SIZE} (OSF's largest page) when present`,
    );
  return problems;
}
