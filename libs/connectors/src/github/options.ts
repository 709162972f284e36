import { checkOptions } from '../option-rules';

export interface GitHubOptions {
  /** the REST API's base URL: `https://api.github.com`, or `https://<host>/api/v3` for GitHub Enterprise Server */
  api_url?: string;
  /**
   * the git host's base URL, where Git LFS's batch API is (`{git_url}/{owner}/{repo}.git/info/lfs/objects/batch`);
   * derived from `api_url` unless given (gitHostOf)
   */
  git_url?: string;
  /** whether the repositories that uploads and transfers create are public; private unless true */
  public?: boolean;
  /** page size of listings; GitHub serves at most 100 a page */
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://api.github.com';
/** GitHub's largest `per_page` (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api). */
export const MAX_PER_PAGE = 100;
/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    git_url: { kind: 'url' },
    public: { kind: 'boolean' },
    per_page: { kind: 'integer', min: 1, max: MAX_PER_PAGE },
  });
}

/**
 * The git host of an API: `https://github.com` for `https://api.github.com` (and `https://<name>.ghe.com` for
 * GitHub Enterprise Cloud's `https://api.<name>.ghe.com`), `https://<host>` for a GitHub Enterprise Server's
 * `https://<host>/api/v3`; any other API is taken to be its own git host.
 */
export function gitHostOf(apiUrl: string): string {
  const url = new URL(apiUrl);
  const enterprise = /^(.*)\/api\/v3\/?$/.exec(url.pathname);
  if (enterprise) return `${url.origin}${enterprise[1]}`;
  if (url.hostname.startsWith('api.')) return `${url.protocol}//${url.host.slice('api.'.length)}`;
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}
