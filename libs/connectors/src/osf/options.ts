import { checkOptions } from '../option-rules';

export interface OsfOptions {
  /** OSF API v2's base URL */
  api_url?: string;
  /** the origin of OSF's file service (WaterButler) for projects stored in the default region */
  files_url?: string;
  /**
   * the origins of the file services of every storage region the token may be sent to, besides the API's and
   * `files_url`: OSF hands out file links at the file service of the region a project is stored in
   */
  files_urls?: string[];
  /** whether projects made by uploads and transfers are public (OSF makes them private by default) */
  public?: boolean;
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://api.osf.io/v2/';
export const DEFAULT_FILES_URL = 'https://files.osf.io/';
/**
 * The file services of OSF's production storage regions, those `GET https://api.osf.io/v2/regions/` lists:
 * United States (`us`, whose file service also answers as files.osf.io), Germany - Frankfurt (`de-1`),
 * Canada - Montréal (`ca-1`) and Australia - Sydney (`au-1`). OSF keeps each region's file service in its
 * database (`Region.waterbutler_url`, addons/osfstorage/models.py), not in its source: the hosts are those
 * of the links OSF hands out (docs/targets/osf.md, Storage regions).
 */
export const PRODUCTION_FILE_SERVICES = [
  'https://files.us.osf.io/',
  'https://files.de-1.osf.io/',
  'https://files.ca-1.osf.io/',
  'https://files.au-1.osf.io/',
] as const;
/** The largest page OSF serves (MAX_PAGE_SIZE in its API settings); larger sizes are cut down to it. */
export const MAX_PAGE_SIZE = 100;

/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    files_url: { kind: 'url' },
    files_urls: { kind: 'url list' },
    public: { kind: 'boolean' },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}

/**
 * The file services trusted with the token: `files_url` and `files_urls`; without `files_urls`, the
 * production regions' when the API is OSF's production API, and none besides `files_url` for any other OSF
 * (its test server, an institution's own), whose tokens production's file services must not receive.
 */
export function fileServiceOrigins(options: OsfOptions): string[] {
  const regions =
    options.files_urls ?? (isProduction(options.api_url ?? DEFAULT_API_URL) ? PRODUCTION_FILE_SERVICES : []);
  return [options.files_url ?? DEFAULT_FILES_URL, ...regions];
}

function isProduction(apiUrl: string): boolean {
  return new URL(apiUrl).origin === new URL(DEFAULT_API_URL).origin;
}
