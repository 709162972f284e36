import type { FakeAnswer, FakeRequest } from '../fake-server';
import type { Origins } from './json';
import {
  DEFINED_TYPES,
  type FigshareState,
  type FigshareUser,
  type StoredArticle,
  type StoredProject,
} from './model';

/** What the API's routes share: the state, where the three servers are, and the upload service's part size. */
export interface FigshareContext {
  state: FigshareState;
  origins(): Origins;
  partSize(): number;
}

export type AccountHandler = (
  request: FakeRequest,
  answer: FakeAnswer,
  user: FigshareUser,
) => void | Promise<void>;
export type Router = (method: string, template: string, handler: AccountHandler) => void;

/**
 * An error: JSON with `message` and `code` (https://docs.figshare.com/old_docs/api/, "Errors"). The pages show
 * codes as words (`"code": "EntityNotFound"`); the OpenAPI description's ErrorMessage types `code` as an
 * integer, and the fake follows the description: its codes are the HTTP statuses.
 */
export function fail(answer: FakeAnswer, status: number, message: string): void {
  answer.json(status, { message, code: status });
}

/**
 * The user whose token a request carries: `Authorization: token <token>`, or `?access_token=<token>`
 * (https://docs.figshare.com/old_docs/api/, "Authentication").
 */
export function caller(context: FigshareContext, request: FakeRequest): FigshareUser | undefined {
  const header = /^token (\S+)$/i.exec(String(request.headers.authorization ?? ''));
  const token = header?.[1] ?? request.url.searchParams.get('access_token');
  return token === null ? undefined : context.state.users.get(token);
}

/** A request's JSON body as an object (an empty body is `{}`); null when it is not one. */
export async function jsonBody(request: FakeRequest): Promise<Record<string, unknown> | null> {
  const text = (await request.body()).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const isString = (value: unknown): value is string => typeof value === 'string';
const stringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

/**
 * What is wrong with the fields of a create or update body, by the request schemas of the OpenAPI description
 * (ProjectCreate, ProjectUpdate, ArticleProjectCreate, ArticleUpdate): a title of 3 to 1000 characters, a
 * description of at most 10000, tags (or keywords) as strings, an item type of the list; null when nothing is.
 */
export function invalidFields(body: Record<string, unknown>, titleRequired: boolean): string | null {
  const { title, description, funding, tags, keywords, defined_type: definedType } = body;
  if (title === undefined && titleRequired) return 'Missing required field: title';
  if (title !== undefined && !(isString(title) && title.length >= 3 && title.length <= 1000))
    return 'Invalid title: it must have from 3 to 1000 characters';
  if (description !== undefined && !(isString(description) && description.length <= 10000))
    return 'Invalid description: it must have at most 10000 characters';
  if (funding !== undefined && !isString(funding)) return 'Invalid funding';
  if ((tags !== undefined && !stringList(tags)) || (keywords !== undefined && !stringList(keywords)))
    return 'Invalid tags: a list of strings is expected';
  if (definedType !== undefined && !(isString(definedType) && definedType in DEFINED_TYPES))
    return 'Invalid defined_type';
  return null;
}

/** The tags a body sets: `tags`, or `keywords` in their place ("Keywords can be used instead"). */
export function tagsOf(body: Record<string, unknown>): string[] | undefined {
  return (body.tags ?? body.keywords) as string[] | undefined;
}

/** The caller's project `id`; otherwise answers 404 for an unknown one, 403 for another user's. */
export function ownProject(
  context: FigshareContext,
  id: string,
  answer: FakeAnswer,
  user: FigshareUser,
): StoredProject | null {
  const project = /^\d+$/.test(id) ? context.state.projects.get(Number(id)) : undefined;
  if (!project) return (fail(answer, 404, 'Entity not found: project'), null);
  if (project.owner !== user.id) return (fail(answer, 403, 'You do not have access to this project'), null);
  return project;
}

/** The caller's article `id`; otherwise answers 404 for an unknown one, 403 for another user's. */
export function ownArticle(
  context: FigshareContext,
  id: string,
  answer: FakeAnswer,
  user: FigshareUser,
): StoredArticle | null {
  const article = /^\d+$/.test(id) ? context.state.articles.get(Number(id)) : undefined;
  if (!article) return (fail(answer, 404, 'Entity not found: article'), null);
  if (article.owner !== user.id) return (fail(answer, 403, 'You do not have access to this article'), null);
  return article;
}
