import type { GitHubApi } from './api';

/** What one user's session of GitHub keeps, which each of its operations is given first. */
export interface GitHubSession {
  /** GitHub's REST API and the user's Git LFS client */
  api: GitHubApi;
  perPage: number;
  /** whether created repositories are public */
  publicRepositories: boolean;
  /** the first wait of the shared client's retries, reused for waiting on a new repository */
  retryBaseMs: number;
}
