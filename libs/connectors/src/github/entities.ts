/** The fields of GitHub's repository objects that the connector reads. */
export interface GitHubRepository {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  description: string | null;
  owner: { login: string };
  html_url: string;
  /** the repository's own API URL; its git data, refs and topics are documented below it */
  url: string;
  default_branch: string;
  created_at: string;
  updated_at: string;
  size?: number;
  topics?: string[];
  /** URI templates (RFC 6570) of the repository's API */
  trees_url: string;
  blobs_url: string;
  git_commits_url: string;
  commits_url: string;
  contents_url: string;
}

/** What GitHub answers with a refusal: its message, and the fields it names. */
export interface GitHubError {
  message?: string;
  errors?: { field?: string; message?: string; code?: string }[];
}
