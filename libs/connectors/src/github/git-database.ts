import { Readable } from 'node:stream';
import { GIT_BLOB_SHA1 } from '@app/fixity';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import { mayBeLfsPointer, parseLfsPointer, readPointerCandidate, type LfsPointer } from '../git-lfs';
import { linkRelations } from '../http';
import { base64JsonBody } from './base64-body';
import { errorSummary, expandTemplate, type GitHubApi } from './api';
import type { GitHubError, GitHubRepository } from './entities';

/** An entry of a git tree as GitHub lists it (https://docs.github.com/en/rest/git/trees#get-a-tree). */
interface RawTreeEntry {
  path: string;
  mode: string;
  type: string;
  sha: string;
  size?: number;
  url?: string;
}

export interface FolderEntry {
  kind: 'folder';
  name: string;
  sha: string;
  /** the API URL of its tree */
  url: string;
}

export interface FileEntry {
  kind: 'file';
  name: string;
  sha: string;
  /** the API URL of its blob */
  url: string;
  size: number;
  mode: string;
}

/**
 * A submodule (it names a commit of another repository) or a symbolic link (its blob is a path, not content):
 * neither is data to move, but its name is taken.
 */
export interface OtherEntry {
  kind: 'other';
  name: string;
}

export type TreeEntry = FolderEntry | FileEntry | OtherEntry;

/**
 * A file of a tree, what git holds for it made out: the content itself, or a Git LFS pointer to it (a blob of
 * a pointer's size is read to find out; docs/targets/github.md#git-lfs).
 */
export interface GitFile {
  entry: FileEntry;
  /** the real content's size: the LFS object's for a pointer */
  size: number;
  /** the pointer git holds, for a file stored in Git LFS */
  lfs?: LfsPointer;
  /** the whole of a small blob read to see whether it was a pointer, to serve without asking again */
  bytes?: Buffer;
}

/** The checksums GitHub vouches for, of the real content: an LFS object's sha256, else the git blob id. */
export function gitFileChecksums(file: GitFile): Record<string, string> {
  return file.lfs ? { sha256: file.lfs.oid } : { [GIT_BLOB_SHA1]: file.entry.sha };
}

/** The commit the default branch points at, and that commit's tree. */
export interface BranchHead {
  commitSha: string;
  treeSha: string;
  treeUrl: string;
}

/** A blob to go into the next commit: the tree entry that will hold it. */
export interface StagedFile {
  /** from the repository's root, `/`-separated */
  path: string;
  sha: string;
  mode: string;
}

export const FILE_MODE = '100644';
const SYMLINK_MODE = '120000';

function treeEntry(raw: RawTreeEntry, repositoryName: string): TreeEntry {
  const { path: name, sha, url, size } = raw;
  const incomplete = () =>
    new ConnectorError(502, `GitHub listed '${name}' in ${repositoryName} without its URL or size.`);
  if (raw.type === 'tree') {
    if (url === undefined) throw incomplete();
    return { kind: 'folder', name, sha, url };
  }
  if (raw.type !== 'blob' || raw.mode === SYMLINK_MODE) return { kind: 'other', name };
  if (url === undefined || size === undefined) throw incomplete();
  return { kind: 'file', name, sha, url, size, mode: raw.mode };
}

const byName = (a: TreeEntry, b: TreeEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The folders and the files of a tree, each by name; submodules and links left out. */
export function sortedEntries(entries: readonly TreeEntry[]): { folders: FolderEntry[]; files: FileEntry[] } {
  const sorted = [...entries].sort(byName);
  return {
    folders: sorted.filter((entry): entry is FolderEntry => entry.kind === 'folder'),
    files: sorted.filter((entry): entry is FileEntry => entry.kind === 'file'),
  };
}

interface CommitItem {
  commit: { committer: { date?: string } | null; author: { date?: string } | null };
}

/**
 * The git database of one repository on its default branch (https://docs.github.com/en/rest/git), reached
 * through the URLs GitHub gives in the repository object.
 */
export class GitDatabase {
  constructor(
    private readonly api: GitHubApi,
    readonly repository: GitHubRepository,
  ) {}

  /** `heads/<branch>`, each segment of the branch name encoded */
  private get branchRef(): string {
    return `heads/${this.repository.default_branch.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * The head of the default branch (https://docs.github.com/en/rest/git/refs#get-a-reference), or null while
   * the repository is empty: GitHub answers 409 for the git data of an empty repository
   * (https://docs.github.com/en/rest/guides/using-the-rest-api-to-interact-with-your-git-database).
   */
  async head(resourceId?: string): Promise<BranchHead | null> {
    const ref = await this.api.call<{ object: { url: string } }>(
      { url: `${this.repository.url}/git/ref/${this.branchRef}` },
      resourceId,
      [409],
    );
    if (ref.status === 409) return null;
    const { data } = await this.api.call<{ sha: string; tree: { sha: string; url: string } }>(
      { url: ref.data.object.url },
      resourceId,
    );
    return { commitSha: data.sha, treeSha: data.tree.sha, treeUrl: data.tree.url };
  }

  /** The entries of one tree, never just a part of them. */
  async listing(treeUrl: string, resourceId?: string): Promise<TreeEntry[]> {
    const { data } = await this.api.call<{ tree: RawTreeEntry[]; truncated: boolean }>(
      { url: treeUrl },
      resourceId,
    );
    if (data.truncated)
      throw new ConnectorError(
        502,
        `GitHub listed only part of a folder of ${this.repository.full_name}: it holds more entries than GitHub lists at once.`,
      );
    return data.tree.map((raw) => treeEntry(raw, this.repository.full_name));
  }

  /** A file entry with its blob made out: content, or an LFS pointer. */
  async resolve(entry: FileEntry): Promise<GitFile> {
    if (!mayBeLfsPointer(entry.size)) return { entry, size: entry.size };
    const bytes = await readPointerCandidate(await this.api.openBlob(entry.url), 'GitHub');
    const lfs = parseLfsPointer(bytes);
    return lfs ? { entry, size: lfs.size, lfs } : { entry, size: entry.size, bytes };
  }

  /** A file's content, streamed: as read already, from Git LFS, or the blob's. */
  async open(file: GitFile, path: string): Promise<Readable> {
    if (file.bytes) return Readable.from([file.bytes]);
    if (file.lfs) return this.api.lfs.download(this.repository, file.lfs, path);
    return this.api.openBlob(file.entry.url);
  }

  /** Stores a file's bytes as a blob and answers its sha (https://docs.github.com/en/rest/git/blobs#create-a-blob). */
  async createBlob(file: IncomingFile): Promise<string> {
    const body = base64JsonBody({ encoding: 'base64' }, file);
    const { data } = await this.api.call<{ sha: string }>({
      method: 'POST',
      url: expandTemplate(this.repository.blobs_url),
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body: body.open,
      // a blob is named by its content: sending it again makes nothing new
      idempotent: true,
    });
    return data.sha;
  }

  /** A tree of `baseTree` with `files` put in, or of `files` alone (https://docs.github.com/en/rest/git/trees#create-a-tree). */
  async createTree(files: readonly StagedFile[], baseTree: string | undefined): Promise<string> {
    const tree = files.map((file) => ({ path: file.path, mode: file.mode, type: 'blob', sha: file.sha }));
    const { data } = await this.api.call<{ sha: string }>({
      method: 'POST',
      url: expandTemplate(this.repository.trees_url),
      json: baseTree === undefined ? { tree } : { base_tree: baseTree, tree },
      idempotent: true,
    });
    return data.sha;
  }

  /** https://docs.github.com/en/rest/git/commits#create-a-commit */
  async createCommit(message: string, treeSha: string, parents: readonly string[]): Promise<string> {
    const { data } = await this.api.call<{ sha: string }>({
      method: 'POST',
      url: expandTemplate(this.repository.git_commits_url),
      json: { message, tree: treeSha, parents },
      // another attempt at most leaves a commit that nothing points to
      idempotent: true,
    });
    return data.sha;
  }

  /**
   * Moves the default branch to a commit when that is a fast-forward
   * (https://docs.github.com/en/rest/git/refs#update-a-reference); false when the branch has moved meanwhile.
   */
  async moveBranch(commitSha: string): Promise<boolean> {
    const answer = await this.api.call<GitHubError>(
      {
        method: 'PATCH',
        url: `${this.repository.url}/git/refs/${this.branchRef}`,
        json: { sha: commitSha, force: false },
        idempotent: true,
      },
      undefined,
      [422],
    );
    if (answer.status !== 422) return true;
    if (/fast.?forward/i.test(answer.data.message ?? '')) return false;
    throw new ConnectorError(502, `GitHub did not move the branch: ${errorSummary(answer.data)}`);
  }

  /**
   * Makes the first commit of an empty repository, holding one file, through the contents API: GitHub's git
   * data API refuses an empty repository and names this as the way to start one
   * (https://docs.github.com/en/rest/repos/contents#create-or-update-file-contents).
   */
  async createFirstFile(
    path: string,
    file: IncomingFile,
    message: string,
  ): Promise<{ blobSha: string; head: BranchHead }> {
    const body = base64JsonBody({ message }, file);
    const { data } = await this.api.call<{
      content: { sha: string };
      commit: { sha: string; tree: { sha: string; url: string } };
    }>({
      method: 'PUT',
      url: expandTemplate(this.repository.contents_url, { path }),
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body: body.open,
      // once the file exists, the same PUT is refused (it would have to name the file's sha)
      idempotent: false,
    });
    const head = { commitSha: data.commit.sha, treeSha: data.commit.tree.sha, treeUrl: data.commit.tree.url };
    return { blobSha: data.content.sha, head };
  }

  /**
   * When a path was first and last changed on the default branch: the dates of its oldest and newest commits
   * (https://docs.github.com/en/rest/commits/commits#list-commits, one commit a page, the oldest on the page
   * the `Link` header calls `last`); null when no commit touches it.
   */
  async pathDates(path: string, resourceId: string): Promise<{ created: string; modified: string } | null> {
    const newest = await this.api.call<CommitItem[]>(
      {
        url: expandTemplate(this.repository.commits_url),
        query: { sha: this.repository.default_branch, path, per_page: 1 },
      },
      resourceId,
    );
    const last = linkRelations(newest.headers, newest.url).last;
    const oldest = last ? (await this.api.call<CommitItem[]>({ url: last }, resourceId)).data : newest.data;
    const modified = commitDate(newest.data[0]);
    const created = commitDate(oldest[0]);
    return modified && created ? { created, modified } : null;
  }
}

function commitDate(item: CommitItem | undefined): string | undefined {
  return item?.commit.committer?.date ?? item?.commit.author?.date;
}
