import { checkOptions } from '../option-rules';

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

/** Every problem with an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    publish: { kind: 'boolean' },
    upload_type: { kind: 'one of', values: UPLOAD_TYPES.filter((type) => !NEEDS_SUBTYPE.has(type)) },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}
