import { checkOptions } from '../option-rules';

export interface FigshareOptions {
  /** FigShare API v2's base URL */
  api_url?: string;
  /**
   * the origin of FigShare's file host, which serves the bytes of files (`download_url`): the only other
   * origin trusted with the token, which it needs for files not yet published
   */
  files_url?: string;
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://api.figshare.com/v2';
export const DEFAULT_FILES_URL = 'https://ndownloader.figshare.com/';
/** The largest `page_size` of FigShare's listings (https://docs.figshare.com/#private_projects_list). */
export const MAX_PAGE_SIZE = 1000;

/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    files_url: { kind: 'url' },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}
