import { ConnectorError } from '../connector-error';
import { decodeId } from './ids';
import { loadProject } from './locate';
import type { GitlabSession } from './session';

/** A project's topics. */
export async function keywords({ api }: GitlabSession, id: string): Promise<string[]> {
  return (await loadProject(api, projectOnly(id), id)).topics ?? [];
}

/** Replaces a project's topics (https://docs.gitlab.com/api/projects/#edit-a-project); the topics as stored. */
export async function setKeywords(
  { api }: GitlabSession,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  const projectId = projectOnly(id);
  await loadProject(api, projectId, id);
  return (await api.setTopics(projectId, keywords, id)).topics ?? [];
}

/** Keywords are a project's topics: files and folders have none. */
function projectOnly(id: string): string {
  const ref = decodeId(id);
  if (!ref) throw ConnectorError.unknownResource(id);
  if (ref.path !== '')
    throw new ConnectorError(
      400,
      'On GitLab only projects have keywords (topics); files and folders have none.',
    );
  return ref.projectId;
}
