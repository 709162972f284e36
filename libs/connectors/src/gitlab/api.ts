import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error';
import {
  linkRelations,
  readJson,
  type RequestBody,
  type UpstreamClient,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../http';
import type { GitlabCommit, GitlabProject, GitlabUser, TreeEntry } from './entities';

/** What `HEAD /projects/:id/repository/files/:file_path` tells of a file in its headers. */
export interface FileMeta {
  size: number;
  /** '' when GitLab gave none (or not in hex) */
  blobId: string;
  sha256: string;
}

/** One page of a listing, with what GitLab's pagination headers say of the others. */
export interface ListedPage<T> {
  items: T[];
  /** absent when GitLab leaves the total out (above 10,000 results) */
  totalPages?: number;
  hasNext: boolean;
}

/** GitLab's largest page, for the listings the connector reads whole. */
const FULL_PAGE = 100;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Path segments of the REST API, each encoded so that a file path is one segment (`/` as `%2F`). */
function apiPath(...segments: (string | number)[]): string {
  return segments.map((segment) => encodeURIComponent(String(segment))).join('/');
}

/** GitLab's validation errors (`{"message": {"name": ["has already been taken"]}}`) as one line. */
export function describeMessage(message: unknown): string {
  if (typeof message === 'string') return message;
  if (typeof message !== 'object' || message === null) return '';
  return Object.entries(message)
    .map(
      ([field, problems]) => `${field} ${Array.isArray(problems) ? problems.join(', ') : String(problems)}`,
    )
    .join('; ');
}

/** The calls the connector makes to GitLab's REST API v4, as one user. */
export class GitlabApi {
  constructor(readonly client: UpstreamClient) {}

  get name(): string {
    return this.client.upstream.name;
  }

  // https://docs.gitlab.com/api/users/#get-the-current-user
  async currentUser(): Promise<GitlabUser> {
    return (await this.client.json<GitlabUser>({ url: 'user' })).data;
  }

  // https://docs.gitlab.com/api/projects/#get-a-single-project
  async project(projectId: string, resourceId: string): Promise<GitlabProject> {
    return (await this.client.json<GitlabProject>({ url: apiPath('projects', projectId) }, resourceId)).data;
  }

  /**
   * One page of a project listing (`projects` or `users/:user_id/projects`), page numbers being GitLab's
   * (https://docs.gitlab.com/api/rest/#offset-based-pagination); null when the listing itself is unknown (a
   * user name nobody has).
   */
  async projectPage(url: string, query: UpstreamRequest['query']): Promise<ListedPage<GitlabProject> | null> {
    const response = await this.client.request({ url, query });
    if (response.status === 404) {
      await response.body.dump();
      return null;
    }
    if (response.status >= 300) throw await this.client.failure(response);
    const items = await readJson<GitlabProject[]>(response, this.name);
    const total = header(response.headers, 'x-total-pages');
    return {
      items,
      totalPages: total !== undefined && /^\d+$/.test(total) ? Number(total) : undefined,
      hasNext: nextPageUrl(response) !== undefined,
    };
  }

  /**
   * The entries of one folder of a repository at `ref`, page by page, following the links GitLab returns
   * (keyset pagination: the `Link` header; an older GitLab's offset pages: `X-Next-Page`).
   */
  async *tree(projectId: string, path: string, ref: string, resourceId: string): AsyncGenerator<TreeEntry[]> {
    let next: URL | string | undefined = apiPath('projects', projectId, 'repository', 'tree');
    let query: UpstreamRequest['query'] = {
      ref,
      path: path === '' ? undefined : path,
      per_page: FULL_PAGE,
      pagination: 'keyset',
    };
    while (next !== undefined) {
      const { data, response } = await this.client.json<TreeEntry[]>({ url: next, query }, resourceId);
      yield data;
      next = nextPageUrl(response);
      query = undefined;
    }
  }

  // https://docs.gitlab.com/api/repository_files/#get-file-metadata-only
  async fileMeta(projectId: string, path: string, ref: string): Promise<FileMeta | null> {
    const response = await this.client.request({
      method: 'HEAD',
      url: apiPath('projects', projectId, 'repository', 'files', path),
      query: { ref },
    });
    await response.body.dump();
    if (response.status === 404) return null;
    if (response.status >= 300) throw await this.client.failure(response);
    const size = Number(header(response.headers, 'x-gitlab-size') ?? NaN);
    if (!Number.isSafeInteger(size) || size < 0)
      throw new ConnectorError(502, `${this.name} did not tell the size of a file.`);
    const hex = (name: string, pattern: RegExp) => {
      const value = (header(response.headers, name) ?? '').toLowerCase();
      return pattern.test(value) ? value : '';
    };
    // a repository in SHA-256 object format has 64-digit object ids
    return {
      size,
      blobId: hex('x-gitlab-blob-id', /^([0-9a-f]{40}|[0-9a-f]{64})$/),
      sha256: hex('x-gitlab-content-sha256', /^[0-9a-f]{64}$/),
    };
  }

  /**
   * A file's bytes as git holds them, or with `lfs` the content of the LFS object its pointer names
   * (https://docs.gitlab.com/api/repository_files/#get-raw-file-from-repository).
   */
  async rawFile(
    projectId: string,
    path: string,
    ref: string,
    { resourceId, lfs = false }: { resourceId?: string; lfs?: boolean } = {},
  ): Promise<Readable> {
    const response = await this.client.stream(
      {
        url: apiPath('projects', projectId, 'repository', 'files', path, 'raw'),
        query: { ref, lfs: lfs || undefined },
      },
      resourceId,
    );
    return response.body;
  }

  // https://docs.gitlab.com/api/commits/#get-a-single-commit
  async commit(projectId: string, ref: string, resourceId: string): Promise<GitlabCommit> {
    const url = apiPath('projects', projectId, 'repository', 'commits', ref);
    return (await this.client.json<GitlabCommit>({ url, query: { stats: false } }, resourceId)).data;
  }

  /** The newest commit of `ref` that touched `path` (https://docs.gitlab.com/api/commits/#list-repository-commits). */
  async lastCommitOf(projectId: string, path: string, ref: string): Promise<GitlabCommit | undefined> {
    const { data } = await this.client.json<GitlabCommit[]>({
      url: apiPath('projects', projectId, 'repository', 'commits'),
      query: { ref_name: ref, path, per_page: 1 },
    });
    return data[0];
  }

  /**
   * Creates a project (https://docs.gitlab.com/api/projects/#create-a-project); null when its name or path is
   * taken in the user's namespace.
   */
  async createProject(fields: Record<string, unknown>): Promise<GitlabProject | null> {
    const response = await this.client.request({ method: 'POST', url: 'projects', json: fields });
    if (response.status === 400) {
      const { message } = (await readJson<{ message?: unknown }>(response, this.name)) ?? {};
      const said = describeMessage(message);
      if (/has already been taken/.test(said)) return null;
      throw new ConnectorError(400, `${this.name} refused the project name: ${said}`);
    }
    if (response.status >= 300) throw await this.client.failure(response);
    return readJson<GitlabProject>(response, this.name);
  }

  // https://docs.gitlab.com/api/projects/#edit-a-project
  async setTopics(projectId: string, topics: readonly string[], resourceId: string): Promise<GitlabProject> {
    const request = { method: 'PUT', url: apiPath('projects', projectId), json: { topics } };
    return (await this.client.json<GitlabProject>(request, resourceId)).data;
  }

  /**
   * Makes one commit of many files (https://docs.gitlab.com/api/commits/#create-a-commit-with-multiple-files-and-actions);
   * the body is made anew, streamed, for each attempt. A commit GitLab refuses (a protected branch, a path it
   * cannot take) is a ConnectorError 400 with GitLab's reason.
   */
  async createCommit(
    projectId: string,
    body: { length: number; open: () => RequestBody },
    resourceId: string,
  ): Promise<GitlabCommit> {
    const response = await this.client.request({
      method: 'POST',
      url: apiPath('projects', projectId, 'repository', 'commits'),
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body: body.open,
    });
    if (response.status === 400) {
      const { message } = (await readJson<{ message?: unknown }>(response, this.name)) ?? {};
      throw new ConnectorError(400, `${this.name} refused the commit: ${describeMessage(message)}`);
    }
    if (response.status === 404) throw await this.client.failure(response, resourceId);
    if (response.status >= 300) throw await this.client.failure(response);
    return readJson<GitlabCommit>(response, this.name);
  }
}

/** The next page of a listing: the `Link` header's `next`, else the same URL with `X-Next-Page`'s page. */
function nextPageUrl(response: UpstreamResponse): URL | undefined {
  const link = linkRelations(response.headers, response.url).next;
  if (link) return link;
  const page = header(response.headers, 'x-next-page');
  if (!page || !/^\d+$/.test(page)) return undefined;
  const next = new URL(response.url);
  next.searchParams.set('page', page);
  return next;
}
