import type { FakeAnswer, FakeRequest } from '../fake-server';
import { fail, invalidFields, jsonBody, ownArticle, tagsOf, type FigshareContext, type Router } from './api';
import { articleCompleteJson, fileJson } from './json';
import type { FigshareUser, StoredArticle, StoredFile } from './model';

/** The file `file_id` of the caller's article `article_id`, with the article; otherwise the refusal is answered. */
function ownFile(
  context: FigshareContext,
  request: FakeRequest,
  answer: FakeAnswer,
  user: FigshareUser,
): { article: StoredArticle; file: StoredFile } | null {
  const article = ownArticle(context, request.params.article_id, answer, user);
  if (!article) return null;
  const file = article.files.find((candidate) => String(candidate.id) === request.params.file_id);
  if (!file) return (fail(answer, 404, 'Entity not found: file'), null);
  return { article, file };
}

const isSize = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/** The private article endpoints (https://docs.figshare.com/#articles) and its files' (#upload_files). */
export function articleRoutes(route: Router, context: FigshareContext): void {
  const { state } = context;
  const api = () => context.origins().api;

  // https://docs.figshare.com/#private_article_delete: answered 204 (the OpenAPI description's Delete article)
  route('DELETE', '/account/articles/{article_id}', (request, answer, user) => {
    const article = ownArticle(context, request.params.article_id, answer, user);
    if (!article) return;
    state.deleteArticle(article);
    answer.empty(204);
  });

  // https://docs.figshare.com/#private_article_details: the article with its files
  route('GET', '/account/articles/{article_id}', (request, answer, user) => {
    const article = ownArticle(context, request.params.article_id, answer, user);
    if (article) answer.json(200, articleCompleteJson(context.origins(), article, user));
  });

  // https://docs.figshare.com/#private_article_update: "request can also be made with the PATCH method"; the
  // fields sent replace the article's (tags as a whole); 205 LocationWarningsUpdate with a Location header
  const update = async (request: FakeRequest, answer: FakeAnswer, user: FigshareUser) => {
    const article = ownArticle(context, request.params.article_id, answer, user);
    if (!article) return;
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const problem = invalidFields(body, false);
    if (problem) return fail(answer, 400, problem);
    const fields = body as { title?: string; description?: string; defined_type?: string };
    article.title = fields.title ?? article.title;
    article.description = fields.description ?? article.description;
    article.definedTypeName = fields.defined_type ?? article.definedTypeName;
    article.tags = tagsOf(body) ?? article.tags;
    state.touch(article);
    const location = `${api()}/account/articles/${article.id}`;
    answer.json(205, { location, warnings: [] }, { location });
  };
  route('PUT', '/account/articles/{article_id}', update);
  route('PATCH', '/account/articles/{article_id}', update);

  // https://docs.figshare.com/#private_article_files_list
  route('GET', '/account/articles/{article_id}/files', (request, answer, user) => {
    const article = ownArticle(context, request.params.article_id, answer, user);
    if (article)
      answer.json(
        200,
        article.files.map((file) => fileJson(context.origins(), file)),
      );
  });

  // https://docs.figshare.com/#private_article_upload_initiate: a FileCreator body (name, size, md5); 201
  // Location, with a Location header; 422 for "parameters missing or incorrect". The new file is `created`,
  // with a token and a link on the upload service.
  route('POST', '/account/articles/{article_id}/files', async (request, answer, user) => {
    const article = ownArticle(context, request.params.article_id, answer, user);
    if (!article) return;
    const body = await jsonBody(request);
    if (!body) return fail(answer, 400, 'The body is not a JSON object');
    const { name, size, md5 = '' } = body;
    if (typeof name !== 'string' || name === '' || !isSize(size) || typeof md5 !== 'string')
      return fail(
        answer,
        422,
        'name (a string), size (a number of bytes) and md5 (a string, optional) expected',
      );
    const file = state.createFile(article, name, size, md5, context.partSize());
    const location = `${api()}/account/articles/${article.id}/files/${file.id}`;
    answer.json(201, { location }, { location });
  });

  // https://docs.figshare.com/#private_article_file
  route('GET', '/account/articles/{article_id}/files/{file_id}', (request, answer, user) => {
    const found = ownFile(context, request, answer, user);
    if (found) answer.json(200, fileJson(context.origins(), found.file));
  });

  // https://docs.figshare.com/#private_article_upload_complete: 202 once every part was received (the file is
  // then assembled, its md5 computed, and it is available; a seeded or completed file has nothing left to
  // do); 400 while some part is missing
  route('POST', '/account/articles/{article_id}/files/{file_id}', (request, answer, user) => {
    const found = ownFile(context, request, answer, user);
    if (!found) return;
    const upload = state.uploads.get(found.file.uploadToken);
    if (!upload || upload.status === 'COMPLETED') return answer.empty(202);
    const missing = upload.parts.filter((part) => !part.received).map((part) => part.partNo);
    if (missing.length > 0)
      return fail(answer, 400, `The upload is not complete: part(s) ${missing.join(', ')} not received`);
    state.complete(upload);
    answer.empty(202);
  });

  // https://docs.figshare.com/#private_article_file_delete
  route('DELETE', '/account/articles/{article_id}/files/{file_id}', (request, answer, user) => {
    const found = ownFile(context, request, answer, user);
    if (!found) return;
    state.deleteFile(found.article, found.file);
    answer.empty(204);
  });
}
