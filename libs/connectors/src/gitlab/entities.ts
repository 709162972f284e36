/** The fields of GitLab's project entity the connector reads (https://docs.gitlab.com/api/projects/). */
export interface GitlabProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  description: string | null;
  created_at: string;
  last_activity_at: string;
  /** the branch files live on; for an empty repository, the branch its first commit will make (may be null) */
  default_branch: string | null;
  empty_repo?: boolean;
  topics?: string[];
  web_url: string;
  visibility?: string;
  archived?: boolean;
  marked_for_deletion_on?: string | null;
  marked_for_deletion_at?: string | null;
}

/** An entry of a repository tree (https://docs.gitlab.com/api/repositories/#list-repository-tree). */
export interface TreeEntry {
  /** the git object id: a blob's is its git blob id */
  id: string;
  name: string;
  /** `commit` is a submodule */
  type: 'tree' | 'blob' | 'commit';
  path: string;
  mode: string;
}

export interface GitlabCommit {
  id: string;
  committed_date: string;
}

export interface GitlabUser {
  id: number;
  username: string;
}

/**
 * The branch a project's files live on. GitLab names it even for an empty repository (the branch the first
 * commit makes, from the group's or instance's default); only an instance with that setting blank gives
 * none, and then `main`, git's and GitLab's usual default, is the branch the first commit makes.
 */
export function branchOf(project: GitlabProject): string {
  return project.default_branch ?? 'main';
}

/** A project whose deletion is scheduled (delayed deletion) is on its way out: not listed, and 410 by id. */
export function isMarkedForDeletion(project: GitlabProject): boolean {
  return Boolean(project.marked_for_deletion_on ?? project.marked_for_deletion_at);
}
