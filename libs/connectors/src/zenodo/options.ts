export interface ZenodoOptions {
  /** the REST API's base URL: Zenodo's, its sandbox's, or another InvenioRDM service's with the same API */
  api_url?: string;
  /** whether a deposition made by an upload or a transfer is published once its files are in */
  publish?: boolean;
  /** the `upload_type` of the depositions the service makes */
  upload_type?: string;
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://zenodo.org/api';
export const DEFAULT_UPLOAD_TYPE = 'other';
/** The largest page of `GET /deposit/depositions` (https://developers.zenodo.org/#list). */
export const MAX_PAGE_SIZE = 100;
/** The controlled vocabulary of `metadata.upload_type` (https://developers.zenodo.org/#representation). */
export const UPLOAD_TYPES = [
  'publication',
  'poster',
  'presentation',
  'dataset',
  'image',
  'video',
  'software',
  'lesson',
  'physicalobject',
  'other',
] as const;
/**
 * Types that need a subtype too (`publication_type`, `image_type`) before Zenodo publishes them: the service
 * has no subtype to give, so it makes neither.
 */
const NEEDS_SUBTYPE = new Set(['publication', 'image']);

const KNOWN_OPTIONS = ['api_url', 'publish', 'upload_type', 'per_page'];

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
  if (options.api_url !== undefined && !isHttpUrl(options.api_url))
    problems.push('options.api_url must be an http or https URL when present');
  if (options.publish !== undefined && typeof options.publish !== 'boolean')
    problems.push('options.publish must be true or false when present');
  const uploadType = options.upload_type;
  if (
    uploadType !== undefined &&
    (typeof uploadType !== 'string' ||
      !(UPLOAD_TYPES as readonly string[]).includes(uploadType) ||
      NEEDS_SUBTYPE.has(uploadType))
  ) {
    const usable = UPLOAD_TYPES.filter((type) => !NEEDS_SUBTYPE.has(type));
    problems.push(`options.upload_type must be one of ${usable.join(', ')} when present`);
  }
  const perPage = options.per_page;
  if (
    perPage !== undefined &&
    !(Number.isInteger(perPage) && Number(perPage) >= 1 && Number(perPage) <= MAX_PAGE_SIZE)
  )
    problems.push(
      `options.per_page must be an integer from 1 to ${MAX_PAGE_SIZE} (Zenodo's largest page) when present`,
    );
  return problems;
}
