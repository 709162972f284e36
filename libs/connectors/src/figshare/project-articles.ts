import { byName } from '../upstream-values';
import type { FigshareApi } from './api';
import type { ProjectReader } from './published';
import type { Article, Project } from './entities';

/**
 * How a project's articles are shown. FigShare keeps files in articles, and articles in projects. The
 * project's own article, the oldest one titled like the project (the one this service makes for the files
 * put into a project), holds the project's own files: they appear directly in the project. Every other article
 * appears as a folder of the project, named after its title.
 */
export interface ProjectArticles {
  own: Article | null;
  /** by title */
  others: Article[];
}

export async function projectArticles(
  api: ProjectReader,
  project: Project,
  resourceId: string,
): Promise<ProjectArticles> {
  let own: Article | null = null;
  const others: Article[] = [];
  for await (const article of api.articles(project.id, resourceId)) {
    if (own === null && article.title === project.title) own = article;
    else others.push(article);
  }
  others.sort((a, b) => byName(a.title, b.title));
  return { own, others };
}

/** The project's own article, made when it has none. */
export async function ownArticle(api: FigshareApi, project: Project, resourceId: string): Promise<Article> {
  const { own } = await projectArticles(api, project, resourceId);
  if (own) return own;
  const id = await api.createArticle(project.id, project.title, resourceId);
  return api.article(project.id, id, resourceId);
}
