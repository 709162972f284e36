import type { ResourceDetail, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import type { GitlabApi, GitlabProject, TreeEntry } from './gitlab-api';
import { heldFile, type HeldFile } from './held-files';
import { decodeId, encodeId, nameOf, parentOf, type ResourceRef } from './ids';
import { isMarkedForDeletion } from './listing';

/**
 * The branch a project's files live on. GitLab names it even for an empty repository (the branch the first
 * commit makes, from the group's or instance's default); only an instance with that setting blank gives
 * none, and then `main`, git's and GitLab's usual default, is the branch the first commit makes.
 */
export function branchOf(project: GitlabProject): string {
  return project.default_branch ?? 'main';
}

/** A tree entry the connector serves: a folder or a file (submodules are another repository's). */
export type PathEntry = TreeEntry & { type: 'tree' | 'blob' };

/** A resource an id names, found at GitLab. */
export interface Located {
  id: string;
  ref: ResourceRef;
  project: GitlabProject;
  branch: string;
  /** the resource's entry in its folder's tree; absent for the project itself */
  entry?: PathEntry;
}

/** The project, refusing one scheduled for deletion (410). */
export async function loadProject(
  api: GitlabApi,
  projectId: string,
  resourceId: string,
): Promise<GitlabProject> {
  const project = await api.project(projectId, resourceId);
  if (isMarkedForDeletion(project)) throw ConnectorError.gone();
  return project;
}

/**
 * The tree entry at `path`, found in its folder's listing: whether a path is a file or a folder is what the
 * entry's `type` says (a file named LICENSE is a file). Null when the folder has no such file or folder.
 */
async function findEntry(
  api: GitlabApi,
  project: GitlabProject,
  path: string,
  resourceId: string,
): Promise<PathEntry | null> {
  if (project.empty_repo) return null;
  const name = nameOf(path);
  for await (const page of api.tree(String(project.id), parentOf(path), branchOf(project), resourceId)) {
    const entry = page.find((candidate) => candidate.name === name);
    if (entry) return entry.type === 'commit' ? null : (entry as PathEntry);
  }
  return null;
}

/** The resource an id names; ConnectorError 404 when there is none the user may see. */
export async function locate(api: GitlabApi, id: string): Promise<Located> {
  const ref = decodeId(id);
  if (!ref) throw ConnectorError.unknownResource(id);
  const project = await loadProject(api, ref.projectId, id);
  const located: Located = { id, ref, project, branch: branchOf(project) };
  if (ref.path === '') return located;
  const entry = await findEntry(api, project, ref.path, id);
  if (!entry) throw ConnectorError.unknownResource(id);
  return { ...located, entry };
}

/** A tree entry as a child of its folder; null for a submodule. */
export function entrySummary(projectId: string, entry: TreeEntry): ResourceSummary | null {
  if (entry.type === 'commit') return null;
  const folder = entry.type === 'tree';
  return {
    kind: folder ? 'container' : 'item',
    kindName: folder ? 'folder' : 'file',
    id: encodeId({ projectId, path: entry.path }),
    container: encodeId({ projectId, path: parentOf(entry.path) }),
    title: entry.name,
  };
}

/** Every child of a folder ('' for the project's top), all pages of it. */
async function childrenOf(api: GitlabApi, located: Located, path: string): Promise<ResourceSummary[]> {
  if (located.project.empty_repo) return [];
  const children: ResourceSummary[] = [];
  const projectId = located.ref.projectId;
  for await (const page of api.tree(projectId, path, located.branch, located.id)) {
    for (const entry of page) {
      const child = entrySummary(projectId, entry);
      if (child) children.push(child);
    }
  }
  return children;
}

function isoUtc(date: string): string {
  return new Date(date).toISOString();
}

function projectDetail(located: Located, children: ResourceSummary[]): ResourceDetail {
  const { project } = located;
  return {
    kind: 'container',
    kindName: 'project',
    id: located.id,
    title: project.name,
    dateCreated: isoUtc(project.created_at),
    dateModified: isoUtc(project.last_activity_at),
    hashes: { md5: null, sha256: null },
    extra: {
      path_with_namespace: project.path_with_namespace,
      web_url: project.web_url,
      description: project.description,
      visibility: project.visibility,
      default_branch: project.default_branch,
      topics: project.topics ?? [],
      archived: project.archived,
      provider: 'gitlab',
    },
    children,
  };
}

/** What a file's detail says of its content: its real size, and for one stored in Git LFS, its pointer. */
function fileExtra(entry: PathEntry, file: HeldFile | null): Record<string, unknown> {
  if (!file?.lfs) return { size: file?.size, blob_id: entry.id };
  return { size: file.size, git_lfs: { oid: file.lfs.oid, pointer_blob_id: entry.id } };
}

/**
 * A resource's detail. GitLab keeps no creation date of a file or folder, so both dates of one are those of
 * the last commit that touched it.
 */
export async function resourceDetail(api: GitlabApi, located: Located): Promise<ResourceDetail> {
  const { entry, ref, project } = located;
  if (!entry) return projectDetail(located, await childrenOf(api, located, ''));
  const place = { projectId: ref.projectId, path: ref.path, ref: located.branch };
  const [lastCommit, file, children] = await Promise.all([
    api.lastCommitOf(ref.projectId, ref.path, located.branch),
    entry.type === 'blob' ? heldFile(api, place) : null,
    entry.type === 'tree' ? childrenOf(api, located, ref.path) : [],
  ]);
  const date = isoUtc(lastCommit?.committed_date ?? project.last_activity_at);
  const isFile = entry.type === 'blob';
  return {
    kind: isFile ? 'item' : 'container',
    kindName: isFile ? 'file' : 'folder',
    id: located.id,
    title: entry.name,
    dateCreated: date,
    dateModified: date,
    hashes: { md5: null, sha256: file?.sha256 || null },
    extra: {
      path: `/${ref.path}`,
      ref: located.branch,
      ...(isFile ? fileExtra(entry, file) : {}),
      ...(lastCommit ? { last_commit_id: lastCommit.id } : {}),
      provider: 'gitlab',
    },
    children,
  };
}
