import { ConnectorError } from '../connector-error';
import type { Article } from './entities';
import { parseId } from './ids';
import { ownArticle, projectArticles } from './project-articles';
import { ownProject, readProject } from './published';
import type { FigshareSession } from './session';

/** FigShare keeps keywords as the `tags` of articles; a project's are those of its own article. */
function tagsOf(article: Article): string[] {
  return Array.isArray(article.tags) ? article.tags.filter((tag) => typeof tag === 'string') : [];
}

function articleIdOf(id: string): { project: string; article?: string } {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  if (parsed.kind === 'file')
    throw new ConnectorError(400, 'FigShare keeps keywords on articles and projects, not on files.');
  return parsed;
}

/** The tags of an article, or of a project's own article (none when it has no article of its own yet). */
export async function keywords({ api }: FigshareSession, id: string): Promise<string[]> {
  const { project: projectId, article } = articleIdOf(id);
  const { project, reader } = await readProject(api, projectId, id);
  if (article !== undefined) return tagsOf(await reader.article(projectId, article, id));
  // a listing's articles carry no tags: the own article is read in full
  const { own } = await projectArticles(reader, project, id);
  return own ? tagsOf(await reader.article(projectId, own.id, id)) : [];
}

/**
 * Replaces the tags of an article, or of a project's own article (made when it has none), and reads them back
 * as FigShare stored them (https://docs.figshare.com/#private_article_update answers without the article).
 */
export async function setKeywords(
  { api }: FigshareSession,
  id: string,
  tags: readonly string[],
): Promise<string[]> {
  const { project: projectId, article } = articleIdOf(id);
  const project = await ownProject(api, projectId, id);
  const target =
    article !== undefined ? await api.article(projectId, article, id) : await ownArticle(api, project, id);
  await api.updateArticle(target.id, { tags: [...tags] }, id);
  return tagsOf(await api.article(projectId, target.id, id));
}
