import { GIT_BLOB_SHA1 } from '@app/fixity';
import type { ResourceDetail, ResourceSummary } from '../connector';
import type { GitHubRepository } from './entities';
import { sortedEntries, type GitFile, type TreeEntry } from './git-database';
import { resourceId } from './ids';
import { locate } from './locate';
import type { GitHubSession } from './session';

export function repositorySummary(repository: GitHubRepository): ResourceSummary {
  return {
    kind: 'container',
    kindName: 'repo',
    id: resourceId(repository.id),
    container: null,
    title: repository.name,
  };
}

function childSummaries(
  repositoryId: number,
  parent: string[],
  entries: readonly TreeEntry[],
): ResourceSummary[] {
  const { folders, files } = sortedEntries(entries);
  return [...folders, ...files].map((entry) => ({
    kind: entry.kind === 'folder' ? 'container' : 'item',
    kindName: entry.kind,
    id: resourceId(repositoryId, [...parent, entry.name]),
    container: resourceId(repositoryId, parent),
    title: entry.name,
  }));
}

function repositoryExtra(repository: GitHubRepository): Record<string, unknown> {
  return {
    full_name: repository.full_name,
    owner: repository.owner.login,
    description: repository.description,
    private: repository.private,
    default_branch: repository.default_branch,
    html_url: repository.html_url,
    topics: repository.topics ?? [],
    size: repository.size,
  };
}

/** What a file's detail says of its content: its real size, and for one stored in Git LFS, its pointer. */
function fileExtra(file: GitFile): Record<string, unknown> {
  if (!file.lfs) return { size: file.size, [GIT_BLOB_SHA1]: file.entry.sha };
  return { size: file.size, git_lfs: { oid: file.lfs.oid, pointer_blob_sha: file.entry.sha } };
}

/** Where a folder or file is, and what it is: a folder's tree, a file's content. */
function entryExtra(repository: GitHubRepository, path: string[], what: Record<string, unknown>) {
  return {
    repository: repository.full_name,
    branch: repository.default_branch,
    path: `/${path.join('/')}`,
    ...what,
  };
}

const utc = (date: string) => new Date(date).toISOString();

/** A repository, folder or file with its children (one level) and its dates. */
export async function getResource({ api }: GitHubSession, id: string): Promise<ResourceDetail> {
  const { database, path, entry, treeUrl } = await locate(api, id);
  const repository = database.repository;
  const children = treeUrl ? childSummaries(repository.id, path, await database.listing(treeUrl, id)) : [];
  const common = { id, hashes: { md5: null, sha256: null }, children };
  if (!entry) {
    return {
      ...common,
      kind: 'container',
      kindName: 'repo',
      title: repository.name,
      dateCreated: utc(repository.created_at),
      dateModified: utc(repository.updated_at),
      extra: repositoryExtra(repository),
    };
  }
  const [changed, file] = await Promise.all([
    database.pathDates(path.join('/'), id),
    entry.kind === 'file' ? database.resolve(entry) : null,
  ]);
  return {
    ...common,
    kind: entry.kind === 'file' ? 'item' : 'container',
    kindName: entry.kind,
    title: entry.name,
    dateCreated: utc(changed?.created ?? repository.created_at),
    dateModified: utc(changed?.modified ?? repository.updated_at),
    // an LFS object's oid is the sha256 of the file's content
    ...(file?.lfs ? { hashes: { md5: null, sha256: file.lfs.oid } } : {}),
    extra: entryExtra(repository, path, file ? fileExtra(file) : { git_tree_sha: entry.sha }),
  };
}
