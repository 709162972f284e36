import type { FakeAnswer, FakeRequest } from '../fake-server';
import { fail, invalidFields, jsonBody, ownProject, tagsOf, type FigshareContext, type Router } from './api';
import {
  accountJson,
  articleJson,
  fileJson,
  projectArticleJson,
  projectCompleteJson,
  projectJson,
} from './json';
import { bodyLookup, projectMatcher, projectOrder, queryLookup, window } from './listing';
import type { FigshareUser, StoredArticle, StoredProject } from './model';

/** The fields of a project a body sets (once `invalidFields` has checked them). */
type ProjectFields = { title?: string; description?: string; funding?: string };

/** The caller's projects that `matches` accepts, in the order and the window the parameters ask for. */
function listProjects(
  context: FigshareContext,
  answer: FakeAnswer,
  user: FigshareUser,
  lookup: (name: string) => unknown,
  matches: (project: StoredProject) => boolean,
): void {
  const slice = window(lookup);
  if ('error' in slice) return fail(answer, 400, slice.error);
  const order = projectOrder(lookup);
  if ('error' in order) return fail(answer, 400, order.error);
  const found = [...context.state.projects.values()]
    .filter((project) => project.owner === user.id && matches(project))
    .sort(order);
  answer.json(
    200,
    found
      .slice(slice.offset, slice.offset + slice.limit)
      .map((project) => projectJson(context.origins(), project)),
  );
}

/** The article `article_id` of the caller's project `project_id`; 404 when the project does not hold it. */
function projectArticle(
  context: FigshareContext,
  request: FakeRequest,
  answer: FakeAnswer,
  user: FigshareUser,
): StoredArticle | null {
  const project = ownProject(context, request.params.project_id, answer, user);
  if (!project) return null;
  const article = project.articles.find((candidate) => String(candidate.id) === request.params.article_id);
  if (!article) return (fail(answer, 404, 'Entity not found: article'), null);
  return article;
}

export function projectRoutes(route: Router, context: FigshareContext): void {
  const { state } = context;
  const api = () => context.origins().api;

  // https://docs.figshare.com/#private_account
  route('GET', '/account', (_request, answer, user) => {
    const used = [...state.articles.values()]
      .filter((article) => article.owner === user.id)
      .flatMap((article) => article.files)
      .reduce((total, file) => total + file.size, 0);
    answer.json(200, accountJson(user, used));
  });

  // https://docs.figshare.com/#private_projects_list
  route('GET', '/account/projects', (request, answer, user) =>
    listProjects(context, answer, user, queryLookup(request.url.searchParams), () => true),
  );

  // https://docs.figshare.com/#private_projects_search: a ProjectsSearch body (CommonSearch and `order`)
  route('POST', '/account/projects/search', async (request, answer, user) => {
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const searchFor = body.search_for ?? '';
    if (typeof searchFor !== 'string') return fail(answer, 400, 'Invalid value received for search_for');
    listProjects(context, answer, user, bodyLookup(body), projectMatcher(searchFor));
  });

  // https://docs.figshare.com/#private_project_create: 201 CreateProjectResponse, with a Location header
  route('POST', '/account/projects', async (request, answer, user) => {
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const problem = invalidFields(body, true);
    if (problem) return fail(answer, 400, problem);
    const project = state.createProject(user.id, body as ProjectFields & { title: string });
    const location = `${api()}/account/projects/${project.id}`;
    answer.json(201, { entity_id: project.id, location }, { location });
  });

  // https://docs.figshare.com/#private_project_details
  route('GET', '/account/projects/{project_id}', (request, answer, user) => {
    const project = ownProject(context, request.params.project_id, answer, user);
    if (project) answer.json(200, projectCompleteJson(context.origins(), project, user));
  });

  // https://docs.figshare.com/#private_project_update: "request can also be made with the PATCH method"; 205
  // with the project's Location and no body
  const update = async (request: FakeRequest, answer: FakeAnswer, user: FigshareUser) => {
    const project = ownProject(context, request.params.project_id, answer, user);
    if (!project) return;
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const problem = invalidFields(body, false);
    if (problem) return fail(answer, 400, problem);
    const fields = body as ProjectFields;
    project.title = fields.title ?? project.title;
    project.description = fields.description ?? project.description;
    project.funding = fields.funding ?? project.funding;
    project.modified = state.tick();
    answer.empty(205, { location: `${api()}/account/projects/${project.id}` });
  };
  route('PUT', '/account/projects/{project_id}', update);
  route('PATCH', '/account/projects/{project_id}', update);

  // https://docs.figshare.com/#private_project_delete: an individual project's articles stay with their owner
  route('DELETE', '/account/projects/{project_id}', (request, answer, user) => {
    const project = ownProject(context, request.params.project_id, answer, user);
    if (!project) return;
    state.deleteProject(project);
    answer.empty(204);
  });

  // https://docs.figshare.com/#private_project_articles_list: oldest first
  route('GET', '/account/projects/{project_id}/articles', (request, answer, user) => {
    const project = ownProject(context, request.params.project_id, answer, user);
    if (!project) return;
    const slice = window(queryLookup(request.url.searchParams));
    if ('error' in slice) return fail(answer, 400, slice.error);
    answer.json(
      200,
      project.articles
        .slice(slice.offset, slice.offset + slice.limit)
        .map((article) => articleJson(context.origins(), article)),
    );
  });

  // https://docs.figshare.com/#private_project_articles_create: 201 LocationWarnings, with a Location header
  route('POST', '/account/projects/{project_id}/articles', async (request, answer, user) => {
    const project = ownProject(context, request.params.project_id, answer, user);
    if (!project) return;
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const problem = invalidFields(body, true);
    if (problem) return fail(answer, 400, problem);
    const article = state.createArticle(project, {
      title: body.title as string,
      description: body.description as string | undefined,
      tags: tagsOf(body),
      definedTypeName: body.defined_type as string | undefined,
    });
    const location = `${api()}/account/projects/${project.id}/articles/${article.id}`;
    answer.json(201, { entity_id: article.id, location, warnings: [] }, { location });
  });

  // https://docs.figshare.com/#private_project_article_details
  route('GET', '/account/projects/{project_id}/articles/{article_id}', (request, answer, user) => {
    const article = projectArticle(context, request, answer, user);
    if (article) answer.json(200, projectArticleJson(context.origins(), article));
  });

  // https://docs.figshare.com/#private_project_article_files
  route('GET', '/account/projects/{project_id}/articles/{article_id}/files', (request, answer, user) => {
    const article = projectArticle(context, request, answer, user);
    if (article)
      answer.json(
        200,
        article.files.map((file) => fileJson(context.origins(), file)),
      );
  });

  // https://docs.figshare.com/#private_project_article_file
  route(
    'GET',
    '/account/projects/{project_id}/articles/{article_id}/files/{file_id}',
    (request, answer, user) => {
      const article = projectArticle(context, request, answer, user);
      if (!article) return;
      const file = article.files.find((candidate) => String(candidate.id) === request.params.file_id);
      if (!file) return fail(answer, 404, 'Entity not found: file');
      answer.json(200, fileJson(context.origins(), file));
    },
  );
}
