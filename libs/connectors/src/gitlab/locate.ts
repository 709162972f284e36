import { ConnectorError } from '../connector-error';
import type { GitlabApi } from './api';
import { branchOf, isMarkedForDeletion, type GitlabProject, type TreeEntry } from './entities';
import { decodeId, nameOf, parentOf, type ResourceRef } from './ids';

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
