import type { GitCommit, GitObjects, GitTreeEntry } from './git-objects';

/**
 * The JSON GitHub answers with, in the shapes of its REST reference (https://docs.github.com/en/rest) and its
 * OpenAPI description (`@octokit/openapi`, `api.github.com.json`), with every required field.
 */

export interface FakeAccount {
  login: string;
  id: number;
  type: 'User' | 'Organization';
  createdAt: string;
  /** an organization's members, who see and push to its repositories */
  members: Set<FakeAccount>;
}

export interface FakeRepository {
  id: number;
  owner: FakeAccount;
  name: string;
  description: string | null;
  private: boolean;
  topics: string[];
  createdAt: string;
  updatedAt: string;
  pushedAt: string;
  defaultBranch: string;
  /** branch name -> commit sha; empty while the repository is empty */
  branches: Map<string, string>;
  objects: GitObjects;
  /** users the owner shared the repository with (https://docs.github.com/en/rest/collaborators/collaborators) */
  collaborators: Set<FakeAccount>;
  /** the repository's Git LFS objects by oid (sha256 of the content); tests may alter one */
  lfsObjects: Map<string, Buffer>;
}

/** Whether an account may push to a repository: its owner, a collaborator, a member of its organization. */
export function canPush(repository: FakeRepository, viewer: FakeAccount | null): boolean {
  if (!viewer) return false;
  return (
    repository.owner === viewer ||
    repository.collaborators.has(viewer) ||
    repository.owner.members.has(viewer)
  );
}

/** Whether an account may read a repository: anyone a public one, those who may push a private one. */
export function canRead(repository: FakeRepository, viewer: FakeAccount | null): boolean {
  return !repository.private || canPush(repository, viewer);
}

/** Where the fake's API and web pages are. */
export interface Hosts {
  /** the API's base URL (with GitHub Enterprise Server's `/api/v3` where the fake has it) */
  api: string;
  web: string;
}

const nodeId = (kind: string, id: string | number) => Buffer.from(`${kind}:${id}`).toString('base64');

/** https://docs.github.com/en/rest/users/users (simple-user) */
export function simpleUser(account: FakeAccount, hosts: Hosts) {
  const url = `${hosts.api}/users/${account.login}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId('User', account.id),
    avatar_url: `${hosts.web}/avatars/${account.id}`,
    gravatar_id: '',
    url,
    html_url: `${hosts.web}/${account.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: account.type,
    site_admin: false,
  };
}

/** https://docs.github.com/en/rest/users/users#get-the-authenticated-user (private-user) */
export function privateUser(account: FakeAccount, repositories: FakeRepository[], hosts: Hosts) {
  const owned = repositories.filter((repository) => repository.owner === account);
  return {
    ...simpleUser(account, hosts),
    name: account.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: owned.filter((repository) => !repository.private).length,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: account.createdAt,
    updated_at: account.createdAt,
    private_gists: 0,
    total_private_repos: owned.filter((repository) => repository.private).length,
    owned_private_repos: owned.filter((repository) => repository.private).length,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

export function repositoryUrl(repository: FakeRepository, hosts: Hosts): string {
  return `${hosts.api}/repos/${repository.owner.login}/${repository.name}`;
}

/** A repository with every field of full-repository (https://docs.github.com/en/rest/repos/repos#get-a-repository). */
export function repositoryJson(repository: FakeRepository, hosts: Hosts, viewer: FakeAccount | null) {
  const url = repositoryUrl(repository, hosts);
  const fullName = `${repository.owner.login}/${repository.name}`;
  const web = `${hosts.web}/${fullName}`;
  const isOwner = viewer === repository.owner;
  const pushes = canPush(repository, viewer);
  return {
    id: repository.id,
    node_id: nodeId('Repository', repository.id),
    name: repository.name,
    full_name: fullName,
    owner: simpleUser(repository.owner, hosts),
    private: repository.private,
    html_url: web,
    description: repository.description,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://${new URL(hosts.web).host}/${fullName}.git`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@${new URL(hosts.web).host}:${fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${web}.git`,
    mirror_url: null,
    hooks_url: `${url}/hooks`,
    svn_url: web,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: repositorySize(repository),
    default_branch: repository.defaultBranch,
    open_issues_count: 0,
    is_template: false,
    topics: repository.topics,
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repository.private ? 'private' : 'public',
    pushed_at: repository.pushedAt,
    created_at: repository.createdAt,
    updated_at: repository.updatedAt,
    permissions: { admin: isOwner, maintain: isOwner, push: pushes, triage: pushes, pull: true },
    allow_forking: true,
    web_commit_signoff_required: false,
    forks: 0,
    open_issues: 0,
    watchers: 0,
    license: null,
    network_count: 0,
    subscribers_count: 0,
  };
}

/** GitHub reports a repository's size in KiB. */
function repositorySize(repository: FakeRepository): number {
  const head = repository.branches.get(repository.defaultBranch);
  const tree = head === undefined ? undefined : repository.objects.commit(head)?.tree;
  if (tree === undefined) return 0;
  const bytes = [...repository.objects.files(tree).values()].reduce(
    (sum, content) => sum + content.length,
    0,
  );
  return Math.ceil(bytes / 1024);
}

/** https://docs.github.com/en/rest/git/trees#get-a-tree */
export function treeJson(
  repository: FakeRepository,
  sha: string,
  entries: GitTreeEntry[],
  truncated: boolean,
  hosts: Hosts,
) {
  const url = repositoryUrl(repository, hosts);
  return {
    sha,
    url: `${url}/git/trees/${sha}`,
    tree: entries.map((entry) => ({
      path: entry.name,
      mode: entry.mode,
      type: entry.type,
      sha: entry.sha,
      // GitHub gives no URL for a submodule's commit, and a size for blobs only
      ...(entry.type === 'blob'
        ? { size: repository.objects.blob(entry.sha)?.length ?? 0, url: `${url}/git/blobs/${entry.sha}` }
        : {}),
      ...(entry.type === 'tree' ? { url: `${url}/git/trees/${entry.sha}` } : {}),
    })),
    truncated,
  };
}

function person(commit: GitCommit) {
  return { name: commit.author.name, email: commit.author.email, date: commit.date };
}

function parentsJson(repository: FakeRepository, commit: GitCommit, hosts: Hosts) {
  const url = repositoryUrl(repository, hosts);
  const web = `${hosts.web}/${repository.owner.login}/${repository.name}`;
  return commit.parents.map((parent) => ({
    sha: parent,
    url: `${url}/git/commits/${parent}`,
    html_url: `${web}/commit/${parent}`,
  }));
}

const UNSIGNED = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };

/** https://docs.github.com/en/rest/git/commits#get-a-commit-object (git-commit) */
export function gitCommitJson(repository: FakeRepository, sha: string, commit: GitCommit, hosts: Hosts) {
  const url = repositoryUrl(repository, hosts);
  return {
    sha,
    node_id: nodeId('Commit', sha),
    url: `${url}/git/commits/${sha}`,
    html_url: `${hosts.web}/${repository.owner.login}/${repository.name}/commit/${sha}`,
    author: person(commit),
    committer: person(commit),
    tree: { sha: commit.tree, url: `${url}/git/trees/${commit.tree}` },
    message: commit.message,
    parents: parentsJson(repository, commit, hosts),
    verification: UNSIGNED,
  };
}

/** An item of https://docs.github.com/en/rest/commits/commits#list-commits (commit) */
export function commitItemJson(repository: FakeRepository, sha: string, commit: GitCommit, hosts: Hosts) {
  const url = repositoryUrl(repository, hosts);
  const web = `${hosts.web}/${repository.owner.login}/${repository.name}`;
  return {
    url: `${url}/commits/${sha}`,
    sha,
    node_id: nodeId('Commit', sha),
    html_url: `${web}/commit/${sha}`,
    comments_url: `${url}/commits/${sha}/comments`,
    commit: {
      url: `${url}/git/commits/${sha}`,
      author: person(commit),
      committer: person(commit),
      message: commit.message,
      comment_count: 0,
      tree: { sha: commit.tree, url: `${url}/git/trees/${commit.tree}` },
      verification: UNSIGNED,
    },
    author: null,
    committer: null,
    parents: parentsJson(repository, commit, hosts),
  };
}

/** https://docs.github.com/en/rest/git/refs#get-a-reference (git-ref) */
export function refJson(repository: FakeRepository, branch: string, sha: string, hosts: Hosts) {
  const url = repositoryUrl(repository, hosts);
  return {
    ref: `refs/heads/${branch}`,
    node_id: nodeId('Ref', `${repository.id}:${branch}`),
    url: `${url}/git/refs/heads/${branch}`,
    object: { sha, type: 'commit', url: `${url}/git/commits/${sha}` },
  };
}
