import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error';
import {
  cleanUpstreamText,
  linkRelations,
  readJson,
  type RateLimitRules,
  type UpstreamClient,
  type UpstreamRequest,
} from '../http';
import type { GitHubError, GitHubRepository } from './entities';
import type { GitHubLfs } from './lfs';

/** The media types of GitHub's REST API (https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#media-types). */
const JSON_MEDIA_TYPE = 'application/vnd.github+json';
const RAW_MEDIA_TYPE = 'application/vnd.github.raw+json';
/** https://docs.github.com/en/rest/about-the-rest-api/api-versions */
const API_VERSION = '2022-11-28';

/**
 * GitHub's secondary rate limits: a 403 or 429 whose message says "secondary rate limit" (once "abuse
 * detection"), often without `Retry-After`. GitHub asks for `Retry-After` or a spent limit's reset to be
 * honoured, and otherwise for a wait of at least a minute, growing with each retry
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit,
 * https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#handle-rate-limit-errors-appropriately).
 */
export const SECONDARY_RATE_LIMITS: RateLimitRules = {
  message: /secondary rate limit|abuse detection/i,
  unadvisedWaitMs: 60_000,
};

/** One page of a listing, and how many pages it has (from its `Link` header). */
export interface ListedRepositories {
  repositories: GitHubRepository[];
  totalPages: number;
}

interface Answer<T> {
  status: number;
  data: T;
  headers: IncomingHttpHeaders;
  url: URL;
}

/**
 * Expands the URI templates GitHub puts in its objects (`.../git/trees{/sha}`, `.../contents/{+path}`): each
 * `{/name}` to `/value`, each `{+name}` to the value with its slashes kept, and any other expression to
 * nothing.
 */
export function expandTemplate(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{([/+]?)([^}]*)\}/g, (_match, operator: string, name: string) => {
    const value = values[name];
    if (value === undefined) return '';
    const encoded = value.split('/').map(encodeURIComponent).join('/');
    return operator === '/' ? `/${encodeURIComponent(value)}` : encoded;
  });
}

/** How many pages a listing has: the page number of its `Link` header's `last`, else this page (or the next). */
function pageCount(answer: Answer<unknown>, page: number): number {
  const links = linkRelations(answer.headers, answer.url);
  const last = Number(links.last?.searchParams.get('page'));
  if (Number.isInteger(last) && last > 0) return last;
  return links.next ? page + 1 : page;
}

/** GitHub's REST API as one user reaches it (https://docs.github.com/en/rest), and its Git LFS objects. */
export class GitHubApi {
  constructor(
    private readonly client: UpstreamClient,
    private readonly lfsClient: GitHubLfs | null = null,
  ) {}

  /** The same API with the user's Git LFS client (which needs the user's login: see `login`). */
  withLfs(lfs: GitHubLfs): GitHubApi {
    return new GitHubApi(this.client, lfs);
  }

  get lfs(): GitHubLfs {
    if (!this.lfsClient) throw new Error('the GitHub API was made without its LFS client');
    return this.lfsClient;
  }

  /**
   * A JSON answer: a success, or an answer of one of the `handled` statuses, which the caller deals with;
   * any other answer throws the ConnectorError it stands for.
   */
  async call<T>(
    request: UpstreamRequest,
    resourceId?: string,
    handled: readonly number[] = [],
  ): Promise<Answer<T>> {
    const response = await this.client.request({
      ...request,
      headers: { accept: JSON_MEDIA_TYPE, 'x-github-api-version': API_VERSION, ...request.headers },
    });
    if (response.status >= 300 && !handled.includes(response.status))
      throw await this.client.failure(response, resourceId);
    const data = await readJson<T>(response, this.client.upstream.name);
    return { status: response.status, data, headers: response.headers, url: response.url };
  }

  /** The raw bytes at a blob URL, streamed. */
  async openBlob(url: string): Promise<Readable> {
    const response = await this.client.stream({
      url,
      headers: { accept: RAW_MEDIA_TYPE, 'x-github-api-version': API_VERSION },
    });
    return response.body;
  }

  /** The login of the token's user (https://docs.github.com/en/rest/users/users#get-the-authenticated-user). */
  async login(): Promise<string> {
    const { data } = await this.call<{ login: string }>({ url: 'user' });
    return data.login;
  }

  /**
   * A repository by its id. `GET /repositories/{id}` is not in GitHub's reference, but GitHub's support has
   * said it can be relied on, and GitHub's own redirects for renamed repositories point to it.
   */
  async repository(repositoryId: string, resourceId: string): Promise<GitHubRepository> {
    return (await this.call<GitHubRepository>({ url: `repositories/${repositoryId}` }, resourceId)).data;
  }

  /**
   * One page of a repository listing, newest first: the user's own (`user/repos`,
   * https://docs.github.com/en/rest/repos/repos#list-repositories-for-the-authenticated-user) or another user's
   * public ones (`users/{username}/repos`, https://docs.github.com/en/rest/repos/repos#list-repositories-for-a-user),
   * which answers null for a user GitHub does not know.
   */
  async listRepositories(path: string, page: number, perPage: number): Promise<ListedRepositories | null> {
    const answer = await this.call<GitHubRepository[]>(
      { url: path, query: { sort: 'updated', direction: 'desc', per_page: perPage, page } },
      undefined,
      [404],
    );
    if (answer.status === 404) return null;
    return { repositories: answer.data, totalPages: pageCount(answer, page) };
  }

  /**
   * Creates a repository with a first commit (https://docs.github.com/en/rest/repos/repos#create-a-repository-for-the-authenticated-user);
   * null when the user already has one of that name.
   */
  async createRepository(name: string, isPrivate: boolean): Promise<GitHubRepository | null> {
    const answer = await this.call<GitHubRepository & GitHubError>(
      { method: 'POST', url: 'user/repos', json: { name, private: isPrivate, auto_init: true } },
      undefined,
      [422],
    );
    if (answer.status === 201) return answer.data;
    const nameTaken = answer.data.errors?.some(
      (error) => error.field === 'name' && /already exists/i.test(error.message ?? ''),
    );
    if (nameTaken) return null;
    throw new ConnectorError(
      400,
      `GitHub refused to create a repository named '${name}': ${errorSummary(answer.data)}`,
    );
  }

  /** https://docs.github.com/en/rest/repos/repos#get-all-repository-topics */
  async topics(repository: GitHubRepository): Promise<string[]> {
    return (await this.call<{ names: string[] }>({ url: `${repository.url}/topics` })).data.names;
  }

  /** https://docs.github.com/en/rest/repos/repos#replace-all-repository-topics */
  async replaceTopics(repository: GitHubRepository, names: readonly string[]): Promise<string[]> {
    const answer = await this.call<{ names: string[] } & GitHubError>(
      { method: 'PUT', url: `${repository.url}/topics`, json: { names } },
      undefined,
      [422],
    );
    if (answer.status === 422)
      throw new ConnectorError(400, `GitHub refused the topics: ${errorSummary(answer.data)}`);
    return answer.data.names;
  }
}

/** What a GitHub error answer says, briefly. */
export function errorSummary(error: GitHubError): string {
  const details = (error.errors ?? []).map((detail) => detail.message ?? detail.code).filter(Boolean);
  return cleanUpstreamText([error.message ?? 'no reason given', ...details].join(': '));
}
