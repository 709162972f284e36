import { checkOptions } from '../option-rules';

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

/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    files_url: { kind: 'url' },
    public: { kind: 'boolean' },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}
