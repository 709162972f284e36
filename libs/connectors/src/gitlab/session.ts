import type { GitlabApi } from './api';
import type { Visibility } from './options';

/** What one user's session of GitLab keeps, which each of its operations is given first. */
export interface GitlabSession {
  api: GitlabApi;
  perPage: number;
  /** the visibility of the projects the connector makes */
  visibility: Visibility;
  /** the file bytes one commit takes at most */
  batchBytes: number;
}
