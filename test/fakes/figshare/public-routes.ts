import type { FakeAnswer, FakeRequest } from '../fake-server';
import { fail, type FigshareContext } from './api';
import { articleJson, publicArticleJson, publicFileJson, publicProjectJson } from './json';
import type { FigshareUser, StoredArticle, StoredProject } from './model';

type PublicHandler = (request: FakeRequest, answer: FakeAnswer) => void | Promise<void>;
type PublicRouter = (method: string, template: string, handler: PublicHandler) => void;

/**
 * FigShare's public endpoints, which answer anyone: published projects, their articles and the articles'
 * files (https://docs.figshare.com/#public_article; the OpenAPI description's operations `project_details`,
 * `project_articles`, `article_details`, `article_files` and `article_file_details`: "Public Project",
 * "Public Project Articles", "View article details", "List article files", "Article file details"). What is
 * not published answers 404, as something unknown does.
 */
export function publicRoutes(route: PublicRouter, context: FigshareContext): void {
  const { state } = context;
  const ownerOf = (owner: number): FigshareUser =>
    [...state.users.values()].find((user) => user.id === owner)!;
  const publishedProject = (id: string, answer: FakeAnswer): StoredProject | null => {
    const project = /^\d+$/.test(id) ? state.projects.get(Number(id)) : undefined;
    if (!project?.published) return (fail(answer, 404, 'Entity not found: project'), null);
    return project;
  };
  const publishedArticle = (id: string, answer: FakeAnswer): StoredArticle | null => {
    const article = /^\d+$/.test(id) ? state.articles.get(Number(id)) : undefined;
    if (!article?.published) return (fail(answer, 404, 'Entity not found: article'), null);
    return article;
  };

  // ProjectComplete
  route('GET', '/projects/{project_id}', (request, answer) => {
    const project = publishedProject(request.params.project_id, answer);
    if (project) answer.json(200, publicProjectJson(context.origins(), project, ownerOf(project.owner)));
  });

  // an array of Article, the project's published ones; the description names no paging parameters, and the
  // fake takes none
  route('GET', '/projects/{project_id}/articles', (request, answer) => {
    const project = publishedProject(request.params.project_id, answer);
    if (project)
      answer.json(
        200,
        project.articles
          .filter((article) => article.published)
          .map((article) => articleJson(context.origins(), article, 'public')),
      );
  });

  // ArticleComplete, with its files
  route('GET', '/articles/{article_id}', (request, answer) => {
    const article = publishedArticle(request.params.article_id, answer);
    if (article) answer.json(200, publicArticleJson(context.origins(), article, ownerOf(article.owner)));
  });

  // an array of PublicFile
  route('GET', '/articles/{article_id}/files', (request, answer) => {
    const article = publishedArticle(request.params.article_id, answer);
    if (article)
      answer.json(
        200,
        article.files.map((file) => publicFileJson(context.origins(), file)),
      );
  });

  // PublicFile
  route('GET', '/articles/{article_id}/files/{file_id}', (request, answer) => {
    const article = publishedArticle(request.params.article_id, answer);
    if (!article) return;
    const file = article.files.find((candidate) => String(candidate.id) === request.params.file_id);
    if (!file) return fail(answer, 404, 'Entity not found: file');
    answer.json(200, publicFileJson(context.origins(), file));
  });
}
