import type { ResourceDetail, ResourceSummary } from '../connector';
import type { GitlabApi } from './api';
import type { GitlabProject, TreeEntry } from './entities';
import { heldFile, type HeldFile } from './held-files';
import { encodeId, parentOf } from './ids';
import { locate, type Located, type PathEntry } from './locate';
import type { GitlabSession } from './session';

export function projectSummary(project: GitlabProject): ResourceSummary {
  return {
    kind: 'container',
    kindName: 'project',
    id: String(project.id),
    container: null,
    title: project.name,
  };
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
export async function getResource({ api }: GitlabSession, id: string): Promise<ResourceDetail> {
  const located = await locate(api, id);
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
