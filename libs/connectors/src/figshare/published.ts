import { ConnectorError, ownOrPublished, requireOwn } from '../connector-error';
import type { FigshareApi } from './api';
import type { Article, ArticleFile, Project } from './entities';

/**
 * Published projects of other users. FigShare's account endpoints answer only the user's own projects (403 or
 * 404 for anyone else's); a published project, its articles and their files are open to everyone at the
 * public endpoints (https://docs.figshare.com/#public_article; the OpenAPI description's operations
 * `project_details`, `project_articles`, `article_details`, `article_files`, `article_file_details`). The
 * connector reads a project there when the account endpoints refuse it, read-only.
 */

/** How a project is read: FigShare's account endpoints for the user's own, the public ones for a published one. */
export type ProjectReader = Pick<FigshareApi, 'project' | 'articles' | 'article' | 'files' | 'file'>;

/** A published project read through the public endpoints, with an article taken only as one of its own. */
class PublishedProject implements ProjectReader {
  /** the ids of the project's articles, read once */
  private members: Promise<Set<number>> | null = null;

  constructor(private readonly api: FigshareApi) {}

  project(projectId: string | number, resourceId: string): Promise<Project> {
    return this.api.publicProject(projectId, resourceId);
  }

  articles(projectId: string | number, resourceId: string): AsyncGenerator<Article> {
    return this.api.publicArticles(projectId, resourceId);
  }

  async article(
    projectId: string | number,
    articleId: string | number,
    resourceId: string,
  ): Promise<Article> {
    await this.requireMember(projectId, articleId, resourceId);
    return this.api.publicArticle(articleId, resourceId);
  }

  async files(
    projectId: string | number,
    articleId: string | number,
    resourceId: string,
  ): Promise<ArticleFile[]> {
    await this.requireMember(projectId, articleId, resourceId);
    return this.api.publicFiles(articleId, resourceId);
  }

  async file(projectId: string, articleId: string, fileId: string, resourceId: string): Promise<ArticleFile> {
    await this.requireMember(projectId, articleId, resourceId);
    return this.api.publicFile(articleId, fileId, resourceId);
  }

  /**
   * 404 for an article that is not in the project: the public article endpoints do not name an article's
   * project, so the project's listing tells (the account endpoints check it themselves).
   */
  private async requireMember(
    projectId: string | number,
    articleId: string | number,
    resourceId: string,
  ): Promise<void> {
    this.members ??= (async () => {
      const ids = new Set<number>();
      for await (const article of this.api.publicArticles(projectId, resourceId)) ids.add(article.id);
      return ids;
    })();
    if (!(await this.members).has(Number(articleId))) throw ConnectorError.unknownResource(resourceId);
  }
}

/** A project as the user reaches it. */
export interface ReadableProject {
  project: Project;
  reader: ProjectReader;
  /** whether it is the user's own project (false: someone else's published project, read-only) */
  own: boolean;
}

/**
 * The user's project `projectId`, or else the published project of that id. When neither is readable, the
 * account endpoint's refusal stands.
 */
export async function readProject(
  api: FigshareApi,
  projectId: string,
  resourceId: string,
): Promise<ReadableProject> {
  const published = new PublishedProject(api);
  const read = await ownOrPublished(
    () => api.project(projectId, resourceId),
    () => published.project(projectId, resourceId),
  );
  return { project: read.found, reader: read.own ? api : published, own: read.own };
}

/** The user's project, to change; someone else's published project answers 403 saying so. */
export async function ownProject(api: FigshareApi, projectId: string, resourceId: string): Promise<Project> {
  return requireOwn(await readProject(api, projectId, resourceId), notTheUsers(projectId)).project;
}

/** Why a published project of someone else cannot be changed. */
export function notTheUsers(projectId: string): string {
  return `FigShare project ${projectId} is another user's published project: it can be read and downloaded here, not changed.`;
}
