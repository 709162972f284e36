import { checkOptions, isRecord } from '../option-rules';

export interface WebdavOptions {
  /**
   * The WebDAV root of a user's files, e.g. `https://cloud.example.org/remote.php/dav/files/{user}/`: `{user}`
   * stands for the user's id, the login of the token (`<login>:<app password>`) or the id the server names for it
   * (user-root.ts); without it, every user has the same root.
   */
  api_url: string;
  /**
   * Where Nextcloud's chunked upload v2 takes a user's uploads, `{user}` as in `api_url`; by default
   * `.../remote.php/dav/uploads/{user}/` when `api_url` is Nextcloud's or ownCloud's `.../remote.php/dav/files/{user}/`,
   * none otherwise (every file then goes in one PUT).
   */
  uploads_url?: string;
  /** files larger than this many MiB go in chunks of this size where the server takes chunked uploads */
  chunk_mib?: number;
  per_page?: number;
}

/** The placeholder of the user's name in `api_url` and `uploads_url`. */
export const USER_PLACEHOLDER = '{user}';
/** Nextcloud's own threshold: its web and desktop clients upload files larger than 100 MiB in chunks. */
export const DEFAULT_CHUNK_MIB = 100;
/**
 * Nextcloud's chunked upload v2 takes chunks of 5 MB to 5 GB, the last one smaller
 * (https://docs.nextcloud.com/server/30/developer_manual/client_apis/WebDAV/chunking.html).
 */
export const MIN_CHUNK_MIB = 5;
export const MAX_CHUNK_MIB = 4096;
export const MAX_PAGE_SIZE = 1000;
/** The files root of Nextcloud's and ownCloud's DAV endpoint, and where the same endpoint takes uploads. */
const FILES_ROOT = /\/remote\.php\/dav\/files\/\{user\}\/?$/;

export function validateOptions(options: unknown): string[] {
  const problems = checkOptions(options, {
    api_url: { kind: 'url' },
    uploads_url: { kind: 'url' },
    chunk_mib: { kind: 'integer', min: MIN_CHUNK_MIB, max: MAX_CHUNK_MIB },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
  if (!isRecord(options)) return problems;
  if (options.api_url === undefined)
    problems.push('options.api_url is required: the WebDAV root of a user’s files');
  for (const key of ['api_url', 'uploads_url'] as const) {
    const value = options[key];
    if (typeof value === 'string' && value.split(USER_PLACEHOLDER).length > 2)
      problems.push(`options.${key} may name ${USER_PLACEHOLDER} once`);
  }
  if (
    typeof options.api_url === 'string' &&
    typeof options.uploads_url === 'string' &&
    differentOrigins(options)
  )
    problems.push(
      'options.uploads_url must be at the origin of options.api_url, the one trusted with the token',
    );
  return problems;
}

function differentOrigins(options: Record<string, unknown>): boolean {
  try {
    return new URL(String(options.api_url)).origin !== new URL(String(options.uploads_url)).origin;
  } catch {
    return false;
  }
}

/** Where chunked uploads go: the option, else Nextcloud's uploads root beside its files root, else none. */
export function uploadsTemplate(options: WebdavOptions): string | undefined {
  if (options.uploads_url !== undefined) return options.uploads_url;
  return FILES_ROOT.test(options.api_url)
    ? options.api_url.replace(FILES_ROOT, `/remote.php/dav/uploads/${USER_PLACEHOLDER}/`)
    : undefined;
}

/** A template URL for one user: `{user}` replaced by the name, as one path segment; always ending in `/`. */
export function forUser(template: string, user: string): URL {
  const url = new URL(template.split(USER_PLACEHOLDER).join(encodeURIComponent(user)));
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * Where to ask whose the credentials are (RFC 5397 `current-user-principal`): Nextcloud's and ownCloud's DAV
 * root (`.../remote.php/dav/`) beside their files root, else the part of `api_url` every user shares.
 */
export function principalProbe(template: string): URL {
  return FILES_ROOT.test(template)
    ? new URL(template.replace(FILES_ROOT, '/remote.php/dav/'))
    : sharedRoot(template);
}

/** The part of `api_url` every user shares (before `{user}`), which answers the status check. */
export function sharedRoot(template: string): URL {
  return new URL(template.split(USER_PLACEHOLDER)[0]);
}
