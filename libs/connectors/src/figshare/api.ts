import type { Readable } from 'node:stream';
import type { UpstreamClient, UpstreamRequest } from '../http';
import { MAX_PAGE_SIZE } from './options';
import type { Account, Article, ArticleFile, Created, Project, Upload } from './entities';

/** Most recently changed first: the order of listings and searches of projects. */
const RECENT_FIRST = { order: 'modified_date', order_direction: 'desc' } as const;

export interface PageQuery {
  page: number;
  pageSize: number;
}

/**
 * FigShare's API v2 as one user reaches it (https://docs.figshare.com/). Paths are the documented ones; a new
 * file is read from the `location` FigShare answers, its parts go to the `upload_url` it hands out and its
 * bytes come from its `download_url`. Each `resourceId` names the resource a 404 is about.
 */
export class FigshareApi {
  constructor(private readonly http: UpstreamClient) {}

  /** https://docs.figshare.com/#private_account */
  async account(): Promise<Account> {
    return this.get<Account>('account');
  }

  /** One page of the user's projects (https://docs.figshare.com/#private_projects_list). */
  async projects({ page, pageSize }: PageQuery): Promise<Project[]> {
    return this.get<Project[]>('account/projects', undefined, { page, page_size: pageSize, ...RECENT_FIRST });
  }

  /** One page of the user's projects that match `searchFor` (https://docs.figshare.com/#private_projects_search). */
  async searchProjects(searchFor: string, { page, pageSize }: PageQuery): Promise<Project[]> {
    const { data } = await this.http.json<Project[]>({
      method: 'POST',
      url: 'account/projects/search',
      json: { search_for: searchFor, page, page_size: pageSize, ...RECENT_FIRST },
      // a search changes nothing: it may be sent again
      idempotent: true,
    });
    return data;
  }

  /** https://docs.figshare.com/#private_project_details */
  async project(projectId: string | number, resourceId: string): Promise<Project> {
    return this.get<Project>(`account/projects/${projectId}`, resourceId);
  }

  /** Every article of a project, oldest first, a page at a time (https://docs.figshare.com/#private_project_articles_list). */
  async *articles(projectId: string | number, resourceId: string): AsyncGenerator<Article> {
    for (let page = 1; ; page++) {
      const articles = await this.get<Article[]>(`account/projects/${projectId}/articles`, resourceId, {
        page,
        page_size: MAX_PAGE_SIZE,
      });
      yield* articles;
      if (articles.length < MAX_PAGE_SIZE) return;
    }
  }

  /** An article of a project; 404 when it is not in that project (https://docs.figshare.com/#private_project_article_details). */
  async article(
    projectId: string | number,
    articleId: string | number,
    resourceId: string,
  ): Promise<Article> {
    return this.get<Article>(`account/projects/${projectId}/articles/${articleId}`, resourceId);
  }

  /** https://docs.figshare.com/#private_project_article_files */
  async files(
    projectId: string | number,
    articleId: string | number,
    resourceId: string,
  ): Promise<ArticleFile[]> {
    return this.get<ArticleFile[]>(`account/projects/${projectId}/articles/${articleId}/files`, resourceId);
  }

  /** https://docs.figshare.com/#private_project_article_file */
  async file(projectId: string, articleId: string, fileId: string, resourceId: string): Promise<ArticleFile> {
    return this.get<ArticleFile>(
      `account/projects/${projectId}/articles/${articleId}/files/${fileId}`,
      resourceId,
    );
  }

  /** A published project, anyone's (https://docs.figshare.com/, operation `project_details`). */
  async publicProject(projectId: string | number, resourceId: string): Promise<Project> {
    return this.get<Project>(`projects/${projectId}`, resourceId);
  }

  /**
   * Every published article of a published project (https://docs.figshare.com/, operation
   * `project_articles`). The description names no paging parameters for it: pages are asked for as on the
   * private listing, and the listing ends at a short page or at one that brings no article not seen before (a
   * server that ignores the parameters answers the whole list each time).
   */
  async *publicArticles(projectId: string | number, resourceId: string): AsyncGenerator<Article> {
    const seen = new Set<number>();
    for (let page = 1; ; page++) {
      const articles = await this.get<Article[]>(`projects/${projectId}/articles`, resourceId, {
        page,
        page_size: MAX_PAGE_SIZE,
      });
      const unseen = articles.filter((article) => !seen.has(article.id));
      for (const article of unseen) seen.add(article.id);
      yield* unseen;
      if (articles.length < MAX_PAGE_SIZE || unseen.length === 0) return;
    }
  }

  /** A published article, with its files (https://docs.figshare.com/#public_article). */
  async publicArticle(articleId: string | number, resourceId: string): Promise<Article> {
    return this.get<Article>(`articles/${articleId}`, resourceId);
  }

  /** https://docs.figshare.com/, operation `article_files` */
  async publicFiles(articleId: string | number, resourceId: string): Promise<ArticleFile[]> {
    return this.get<ArticleFile[]>(`articles/${articleId}/files`, resourceId);
  }

  /** https://docs.figshare.com/, operation `article_file_details` */
  async publicFile(articleId: string, fileId: string, resourceId: string): Promise<ArticleFile> {
    return this.get<ArticleFile>(`articles/${articleId}/files/${fileId}`, resourceId);
  }

  /** A new project; its id (https://docs.figshare.com/#private_project_create). */
  async createProject(title: string, description: string): Promise<number> {
    const { data } = await this.http.json<Created>({
      method: 'POST',
      url: 'account/projects',
      json: { title, description },
    });
    return createdId(data);
  }

  /** A new article in a project; its id (https://docs.figshare.com/#private_project_articles_create). */
  async createArticle(projectId: number, title: string, resourceId: string): Promise<number> {
    const { data } = await this.http.json<Created>(
      { method: 'POST', url: `account/projects/${projectId}/articles`, json: { title } },
      resourceId,
    );
    return createdId(data);
  }

  /** Changes the given fields of an article (https://docs.figshare.com/#private_article_update). */
  async updateArticle(articleId: number, fields: Partial<Article>, resourceId: string): Promise<void> {
    await this.succeed({ method: 'PUT', url: `account/articles/${articleId}`, json: fields }, resourceId);
  }

  /**
   * Announces a file to an article and answers it with its `upload_url`
   * (https://docs.figshare.com/#private_article_upload_initiate).
   */
  async initiateUpload(articleId: number, name: string, size: number, md5: string): Promise<ArticleFile> {
    const { data } = await this.http.json<{ location: string }>({
      method: 'POST',
      url: `account/articles/${articleId}/files`,
      json: { name, size, md5 },
    });
    return this.get<ArticleFile>(data.location);
  }

  /** The parts an upload is to be sent in (https://docs.figshare.com/old_docs/api/file_uploader/). */
  async upload(uploadUrl: string): Promise<Upload> {
    return this.get<Upload>(uploadUrl);
  }

  /** Sends one part's bytes, `size` of them, made anew for each attempt. */
  async putPart(
    uploadUrl: string,
    partNo: number,
    size: number,
    body: () => Promise<Readable>,
  ): Promise<void> {
    await this.succeed({
      method: 'PUT',
      url: `${uploadUrl.replace(/\/$/, '')}/${partNo}`,
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body,
    });
  }

  /** Ends an upload once every part is in (https://docs.figshare.com/#private_article_upload_complete). */
  async completeUpload(articleId: number, fileId: number): Promise<void> {
    // completing a completed upload changes nothing: it may be sent again
    await this.succeed({
      method: 'POST',
      url: `account/articles/${articleId}/files/${fileId}`,
      idempotent: true,
    });
  }

  /** https://docs.figshare.com/#private_article_delete: the article with its files */
  async deleteArticle(articleId: number): Promise<void> {
    await this.http.remove({ url: `account/articles/${articleId}` });
  }

  /** https://docs.figshare.com/#private_project_delete: the project alone, its articles stay */
  async deleteProject(projectId: string): Promise<void> {
    await this.http.remove({ url: `account/projects/${projectId}` });
  }

  /** https://docs.figshare.com/#private_article_file_delete */
  async deleteFile(articleId: number, fileId: number): Promise<void> {
    await this.succeed({ method: 'DELETE', url: `account/articles/${articleId}/files/${fileId}` });
  }

  /** A file's bytes from the link FigShare gave for them, wherever it redirects. */
  async download(url: string): Promise<Readable> {
    return (await this.http.stream({ url, headers: { accept: '*/*' } })).body;
  }

  private async get<T>(url: string, resourceId?: string, query?: UpstreamRequest['query']): Promise<T> {
    return (await this.http.json<T>({ url, query }, resourceId)).data;
  }

  /** A request whose answer says only that it succeeded (FigShare answers 202, 204 or 205 without JSON). */
  private async succeed(request: UpstreamRequest, resourceId?: string): Promise<void> {
    const response = await this.http.request(request);
    if (response.status >= 300) throw await this.http.failure(response, resourceId);
    await response.body.dump();
  }
}

/** The id of what a create made: `entity_id`, or the last segment of its `location`. */
function createdId(created: Created): number {
  if (typeof created.entity_id === 'number') return created.entity_id;
  return Number(new URL(created.location).pathname.split('/').filter(Boolean).pop());
}
