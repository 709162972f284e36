import { createHash, randomBytes } from 'node:crypto';
import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';
import {
  commitId,
  gitBlobId,
  isFolder,
  treeEntries,
  type FakeCommit,
  type TreeEntryJson,
} from './fake-repository';
import { gitlabLfsPointer, isLfsTracked, lfsPointerFor } from './fake-lfs';

/**
 * A fake of GitLab's REST API v4 (https://docs.gitlab.com/api/rest/): the part the connector uses, with
 * GitLab's paths, parameters, pagination and rate-limit headers, statuses and JSON shapes, and state (users,
 * projects, their repositories and topics) that tests seed and read back. Each handler cites the page it
 * follows. Every route is below `/api/v4`.
 */

export interface FakeUser {
  id: number;
  username: string;
  name: string;
  token: string;
}

export interface FakeProject {
  id: number;
  name: string;
  path: string;
  owner: FakeUser;
  description: string | null;
  visibility: 'private' | 'internal' | 'public';
  topics: string[];
  createdAt: string;
  lastActivityAt: string;
  /** the branch of the repository; an empty repository's is the instance default when GitLab names one */
  branch: string | null;
  commits: FakeCommit[];
  markedForDeletionOn: string | null;
  /** `private`: only members may read the repository (https://docs.gitlab.com/user/public_access/) */
  repositoryAccessLevel: 'enabled' | 'private';
  /** the project's Git LFS objects by oid (what `LfsObjectsProject` links to it); tests may alter one */
  lfsObjects: Map<string, Buffer>;
  /** `lfs_enabled` of the project (https://docs.gitlab.com/api/projects/#edit-a-project) */
  lfsEnabled: boolean;
}

export interface SeedSpec {
  /** path -> content; a path ending in `/` is an empty folder */
  files?: Record<string, string | Buffer>;
  /** path -> content of files pushed through Git LFS: git holds their pointers, the project their objects */
  lfs?: Record<string, string | Buffer>;
  topics?: string[];
  description?: string;
  visibility?: FakeProject['visibility'];
  markedForDeletion?: boolean;
  repositoryAccessLevel?: FakeProject['repositoryAccessLevel'];
  branch?: string;
}

type Handler = (request: FakeRequest, answer: FakeAnswer, user: FakeUser) => void | Promise<void>;

/** One file of a create-commit request, as GitLab decodes it. */
interface CommitAction {
  action: string;
  file_path: string;
  content?: string;
  encoding?: string;
}

// https://docs.gitlab.com/api/rest/#offset-based-pagination
const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;
const SECOND = 1000;

function perPageOf(request: FakeRequest): number {
  const asked = Number(request.url.searchParams.get('per_page') ?? DEFAULT_PER_PAGE);
  return Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_PER_PAGE) : DEFAULT_PER_PAGE;
}

function pageOf(request: FakeRequest): number {
  const asked = Number(request.url.searchParams.get('page') ?? 1);
  return Number.isInteger(asked) && asked > 0 ? asked : 1;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export interface FakeGitlabSettings {
  /** GitLab leaves the totals out of a listing with more results than this (https://docs.gitlab.com/api/rest/#pagination-response-headers) */
  countLimit: number;
  /** an older GitLab (before 17.1) pages trees by number only, ignoring `pagination=keyset` */
  keysetTrees: boolean;
  /** the branch an empty repository's first commit makes (`default_branch_name` of the instance), or null when blank */
  instanceDefaultBranch: string | null;
  /** whether raw file downloads are sent with a redirect to the storage, as GitLab does for files kept in object storage */
  redirectDownloads: boolean;
  /** a test's way to make GitLab keep other bytes than a commit sent (a proxy or a conversion on the way) */
  alterCommitted: ((path: string, content: Buffer) => Buffer) | null;
}

function defaultSettings(): FakeGitlabSettings {
  return {
    countLimit: 10_000,
    keysetTrees: true,
    instanceDefaultBranch: 'main',
    redirectDownloads: false,
    alterCommitted: null,
  };
}

export class FakeGitlab {
  readonly server = new FakeServer('GitLab', '/api/v4');
  /** what tests may change; `reset` restores it */
  settings = defaultSettings();
  private storage: FakeServer | null = null;
  private readonly users: FakeUser[] = [];
  private projects: FakeProject[] = [];
  private readonly stored = new Map<string, Buffer>();
  private nextProjectId = 1000;
  private clock = Date.parse('2024-01-01T00:00:00Z');
  private requestCount = 0;

  get url(): string {
    return this.server.url;
  }

  async start(): Promise<this> {
    await this.server.start();
    this.routes();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  // ---- state for tests ----

  addUser(username: string, token: string): FakeUser {
    const user = {
      id: this.users.length + 1,
      username,
      name: username[0].toUpperCase() + username.slice(1),
      token,
    };
    this.users.push(user);
    return user;
  }

  /** Removes every project (users stay), the requests and answers recorded, faults, and settings tests changed. */
  reset(): void {
    this.projects = [];
    this.stored.clear();
    this.settings = defaultSettings();
    this.server.requests.length = 0;
    this.server.answers.length = 0;
    this.server.clearFaults();
  }

  /** A project of `owner` holding `files` in one commit, newer than anything before it. */
  seedProject(owner: string, name: string, spec: SeedSpec = {}): FakeProject {
    const project = this.newProject(
      this.user(owner),
      name,
      name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      spec,
    );
    const files = new Map<string, Buffer>();
    const emptyFolders = new Set<string>();
    for (const [path, content] of Object.entries(spec.files ?? {})) {
      if (path.endsWith('/')) emptyFolders.add(path.slice(0, -1));
      else files.set(path, Buffer.from(content));
    }
    for (const [path, content] of Object.entries(spec.lfs ?? {}))
      files.set(path, this.storeLfsObject(project, Buffer.from(content)));
    if (files.size > 0 || emptyFolders.size > 0) {
      project.branch = spec.branch ?? 'main';
      this.addCommit(project, 'Initial commit', files, emptyFolders);
    }
    this.projects.push(project);
    return project;
  }

  project(id: number | string): FakeProject {
    const project = this.projects.find((candidate) => candidate.id === Number(id));
    if (!project) throw new Error(`the fake GitLab has no project ${id}`);
    return project;
  }

  /** Replaces the bytes of every project's LFS object `oid`, as damaged storage would. */
  corruptLfsObject(oid: string, bytes: Buffer): void {
    for (const project of this.projects) if (project.lfsObjects.has(oid)) project.lfsObjects.set(oid, bytes);
  }

  /** The files at the head of a project's branch, path -> content. */
  filesOf(id: number | string): Record<string, string> {
    const head = this.project(id).commits.at(-1);
    return Object.fromEntries(
      [...(head?.files ?? new Map<string, Buffer>())].map(([path, content]) => [path, content.toString()]),
    );
  }

  // ---- behaviour ----

  private tick(): string {
    this.clock += SECOND;
    return new Date(this.clock).toISOString();
  }

  private user(username: string): FakeUser {
    const user = this.users.find((candidate) => candidate.username === username);
    if (!user) throw new Error(`the fake GitLab has no user ${username}`);
    return user;
  }

  private newProject(owner: FakeUser, name: string, path: string, spec: SeedSpec): FakeProject {
    const now = this.tick();
    return {
      id: this.nextProjectId++,
      name,
      path,
      owner,
      description: spec.description ?? null,
      visibility: spec.visibility ?? 'private',
      topics: spec.topics ?? [],
      createdAt: now,
      lastActivityAt: now,
      branch: this.settings.instanceDefaultBranch,
      commits: [],
      markedForDeletionOn: spec.markedForDeletion ? now.slice(0, 10) : null,
      repositoryAccessLevel: spec.repositoryAccessLevel ?? 'enabled',
      lfsObjects: new Map(),
      lfsEnabled: true,
    };
  }

  /** Keeps content as an LFS object of the project and answers the pointer git holds in its place. */
  private storeLfsObject(project: FakeProject, content: Buffer): Buffer {
    const { pointer, oid } = lfsPointerFor(content);
    project.lfsObjects.set(oid, content);
    return pointer;
  }

  private addCommit(
    project: FakeProject,
    message: string,
    files: ReadonlyMap<string, Buffer>,
    emptyFolders: ReadonlySet<string> = new Set(),
  ): FakeCommit {
    const parentIds = project.commits.length > 0 ? [project.commits.at(-1)!.id] : [];
    const commit: FakeCommit = {
      id: commitId(parentIds, message, files),
      message,
      committedDate: this.tick(),
      parentIds,
      files,
      emptyFolders,
    };
    project.commits.push(commit);
    project.lastActivityAt = commit.committedDate;
    return commit;
  }

  /** Standard headers of every answer: GitLab.com's rate-limit headers (https://docs.gitlab.com/administration/settings/user_and_ip_rate_limits/#response-headers). */
  private headers(extra: Record<string, string> = {}): Record<string, string> {
    this.requestCount++;
    const reset = Math.ceil(this.clock / SECOND) + 60;
    return {
      'ratelimit-limit': '2000',
      'ratelimit-observed': String(this.requestCount),
      'ratelimit-remaining': String(Math.max(0, 2000 - this.requestCount)),
      'ratelimit-reset': String(reset),
      'ratelimit-resettime': new Date(reset * SECOND).toUTCString(),
      ...extra,
    };
  }

  private error(answer: FakeAnswer, status: number, message: string): void {
    answer.json(status, { message }, this.headers());
  }

  /** The user behind the request's PRIVATE-TOKEN (https://docs.gitlab.com/api/rest/authentication/#personalprojectgroup-access-tokens). */
  private authenticate(request: FakeRequest, answer: FakeAnswer): FakeUser | null {
    const token = request.headers['private-token'];
    const user = this.users.find((candidate) => candidate.token === token);
    if (!user) this.error(answer, 401, '401 Unauthorized');
    return user ?? null;
  }

  private isMember(user: FakeUser, project: FakeProject): boolean {
    return project.owner.id === user.id;
  }

  private canSee(user: FakeUser, project: FakeProject): boolean {
    return this.isMember(user, project) || project.visibility !== 'private';
  }

  /** The project of the path, if the user may see it; answers 404 otherwise, as GitLab hides what one may not see. */
  private visibleProject(request: FakeRequest, answer: FakeAnswer, user: FakeUser): FakeProject | null {
    const project = this.projects.find((candidate) => String(candidate.id) === request.params.id);
    if (!project || !this.canSee(user, project)) {
      this.error(answer, 404, '404 Project Not Found');
      return null;
    }
    return project;
  }

  /** The project, if the user may read its repository (403 when its repository is for members only). */
  private readableRepository(request: FakeRequest, answer: FakeAnswer, user: FakeUser): FakeProject | null {
    const project = this.visibleProject(request, answer, user);
    if (project && project.repositoryAccessLevel === 'private' && !this.isMember(user, project)) {
      this.error(answer, 403, '403 Forbidden');
      return null;
    }
    return project;
  }

  /** The commit a `ref` (branch name or commit id) names; the branch when no ref is given. */
  private commitAt(project: FakeProject, ref: string | null): FakeCommit | undefined {
    if (project.commits.length === 0) return undefined;
    if (ref === null || ref === project.branch) return project.commits.at(-1);
    return project.commits.find(
      (commit) => commit.id === ref || (ref.length >= 7 && commit.id.startsWith(ref)),
    );
  }

  // https://docs.gitlab.com/api/projects/ (the project entity, as an authenticated user sees it)
  private projectJson(project: FakeProject): Record<string, unknown> {
    const web = `${this.server.origin}/${project.owner.username}/${project.path}`;
    const api = `${this.url}/projects/${project.id}`;
    return {
      id: project.id,
      description: project.description,
      name: project.name,
      name_with_namespace: `${project.owner.name} / ${project.name}`,
      path: project.path,
      path_with_namespace: `${project.owner.username}/${project.path}`,
      created_at: project.createdAt,
      updated_at: project.lastActivityAt,
      default_branch: project.commits.length > 0 ? project.branch : this.settings.instanceDefaultBranch,
      tag_list: project.topics,
      topics: project.topics,
      ssh_url_to_repo: `git@127.0.0.1:${project.owner.username}/${project.path}.git`,
      http_url_to_repo: `${web}.git`,
      web_url: web,
      readme_url: null,
      avatar_url: null,
      forks_count: 0,
      star_count: 0,
      last_activity_at: project.lastActivityAt,
      namespace: {
        id: project.owner.id,
        name: project.owner.name,
        path: project.owner.username,
        kind: 'user',
        full_path: project.owner.username,
        parent_id: null,
        avatar_url: null,
        web_url: `${this.server.origin}/${project.owner.username}`,
      },
      _links: {
        self: api,
        issues: `${api}/issues`,
        merge_requests: `${api}/merge_requests`,
        repo_branches: `${api}/repository/branches`,
        labels: `${api}/labels`,
        events: `${api}/events`,
        members: `${api}/members`,
      },
      empty_repo: project.commits.length === 0,
      archived: false,
      visibility: project.visibility,
      owner: this.userJson(project.owner),
      repository_access_level: project.repositoryAccessLevel,
      creator_id: project.owner.id,
      marked_for_deletion_at: project.markedForDeletionOn,
      marked_for_deletion_on: project.markedForDeletionOn,
    };
  }

  // https://docs.gitlab.com/api/users/ (UserBasic)
  private userJson(user: FakeUser): Record<string, unknown> {
    return {
      id: user.id,
      username: user.username,
      name: user.name,
      state: 'active',
      locked: false,
      avatar_url: null,
      web_url: `${this.server.origin}/${user.username}`,
    };
  }

  // https://docs.gitlab.com/api/commits/ (the commit entity)
  private commitJson(project: FakeProject, commit: FakeCommit): Record<string, unknown> {
    const [title] = commit.message.split('\n');
    const author = project.owner;
    return {
      id: commit.id,
      short_id: commit.id.slice(0, 11),
      created_at: commit.committedDate,
      parent_ids: commit.parentIds,
      title,
      message: commit.message,
      author_name: author.name,
      author_email: `${author.username}@example.com`,
      authored_date: commit.committedDate,
      committer_name: author.name,
      committer_email: `${author.username}@example.com`,
      committed_date: commit.committedDate,
      trailers: {},
      extended_trailers: {},
      web_url: `${this.server.origin}/${project.owner.username}/${project.path}/-/commit/${commit.id}`,
    };
  }

  /**
   * Offset pagination headers (https://docs.gitlab.com/api/rest/#offset-based-pagination): `X-Page`,
   * `X-Per-Page`, `X-Next-Page`, `X-Prev-Page`, `X-Total`, `X-Total-Pages` and a `Link` header; totals and
   * the `last` link are left out above `countLimit` results.
   */
  private offsetPage<T>(
    request: FakeRequest,
    items: readonly T[],
    counted = true,
  ): { page: T[]; headers: Record<string, string> } {
    const perPage = perPageOf(request);
    const page = pageOf(request);
    const totalPages = Math.max(1, Math.ceil(items.length / perPage));
    const withTotals = counted && items.length <= this.settings.countLimit;
    const link = (rel: string, number: number) => {
      const url = new URL(request.url.pathname + request.url.search, this.server.origin);
      url.searchParams.set('page', String(number));
      url.searchParams.set('per_page', String(perPage));
      return `<${url.href}>; rel="${rel}"`;
    };
    const hasNext = page * perPage < items.length;
    const links = [
      ...(page > 1 ? [link('prev', page - 1)] : []),
      ...(hasNext ? [link('next', page + 1)] : []),
      link('first', 1),
      ...(withTotals ? [link('last', totalPages)] : []),
    ];
    return {
      page: items.slice((page - 1) * perPage, page * perPage),
      headers: {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': hasNext ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        ...(withTotals ? { 'x-total': String(items.length), 'x-total-pages': String(totalPages) } : {}),
        link: links.join(', '),
      },
    };
  }

  /**
   * GitLab's project `search`: each word of three or more characters must occur (case-insensitively) in the
   * name, the path or the description; a shorter query must equal one of them (`Gitlab::SQL::Pattern`).
   */
  private matchesSearch(project: FakeProject, search: string): boolean {
    const fields = [project.name, project.path, project.description ?? ''].map((field) =>
      field.toLowerCase(),
    );
    const words = search
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word.length >= 3);
    if (words.length === 0) return fields.includes(search.toLowerCase().trim());
    return fields.some((field) => words.every((word) => field.includes(word)));
  }

  /** Filters and orders of the project listings (https://docs.gitlab.com/api/projects/#list-all-projects). */
  private listed(request: FakeRequest, projects: FakeProject[]): FakeProject[] {
    const query = request.url.searchParams;
    const search = query.get('search');
    const topic = query.get('topic');
    const orderBy = query.get('order_by') ?? 'created_at';
    const ascending = query.get('sort') === 'asc';
    const key = (project: FakeProject): string | number =>
      orderBy === 'last_activity_at' || orderBy === 'updated_at'
        ? project.lastActivityAt
        : orderBy === 'name'
          ? project.name
          : orderBy === 'id'
            ? project.id
            : project.createdAt;
    return projects
      .filter((project) => !search || this.matchesSearch(project, search))
      .filter(
        (project) =>
          !topic ||
          topic
            .split(',')
            .every((name) => project.topics.some((t) => t.toLowerCase() === name.toLowerCase())),
      )
      .sort((a, b) => {
        const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : b.id - a.id;
        return ascending ? order : -order;
      });
  }

  /** Every route: each handler answers an authenticated user (https://docs.gitlab.com/api/rest/authentication/). */
  private routes(): void {
    const routes: [string, string, Handler][] = [
      ['GET', '/version', this.version],
      ['GET', '/user', this.currentUser],
      ['GET', '/projects', this.listProjects],
      ['GET', '/users/{user_id}/projects', this.listUserProjects],
      ['GET', '/projects/{id}', this.getProject],
      ['POST', '/projects', this.createProject],
      ['PUT', '/projects/{id}', this.editProject],
      ['GET', '/projects/{id}/repository/tree', this.tree],
      ['HEAD', '/projects/{id}/repository/files/{file_path}', this.fileMetadata],
      ['GET', '/projects/{id}/repository/files/{file_path}/raw', this.rawFile],
      ['GET', '/projects/{id}/repository/commits', this.listCommits],
      ['GET', '/projects/{id}/repository/commits/{sha}', this.getCommit],
      ['POST', '/projects/{id}/repository/commits', this.createCommit],
    ];
    for (const [method, template, handler] of routes) {
      this.server.route(method, template, async (request, answer) => {
        const user = this.authenticate(request, answer);
        if (user) await handler(request, answer, user);
      });
    }
  }

  // https://docs.gitlab.com/api/version/ (authentication required)
  private readonly version: Handler = (_request, answer) =>
    answer.json(200, { version: '17.11.0', revision: 'fake' }, this.headers());

  // https://docs.gitlab.com/api/users/#get-the-current-user
  private readonly currentUser: Handler = (_request, answer, user) =>
    answer.json(
      200,
      { ...this.userJson(user), created_at: '2023-01-01T00:00:00.000Z', bio: '' },
      this.headers(),
    );

  private answerProjects(request: FakeRequest, answer: FakeAnswer, projects: FakeProject[]): void {
    const { page, headers } = this.offsetPage(request, this.listed(request, projects));
    answer.json(
      200,
      page.map((project) => this.projectJson(project)),
      this.headers(headers),
    );
  }

  // https://docs.gitlab.com/api/projects/#list-all-projects
  private readonly listProjects: Handler = (request, answer, user) => {
    const membership = request.url.searchParams.get('membership') === 'true';
    const candidates = this.projects.filter((project) =>
      membership ? this.isMember(user, project) : this.canSee(user, project),
    );
    this.answerProjects(request, answer, candidates);
  };

  // https://docs.gitlab.com/api/projects/#list-a-users-projects: the projects in that user's namespace
  private readonly listUserProjects: Handler = (request, answer, user) => {
    const named = request.params.user_id;
    const owner = this.users.find(
      (candidate) => String(candidate.id) === named || candidate.username === named,
    );
    if (!owner) return this.error(answer, 404, '404 User Not Found');
    const owned = this.projects.filter(
      (project) => project.owner.id === owner.id && this.canSee(user, project),
    );
    this.answerProjects(request, answer, owned);
  };

  // https://docs.gitlab.com/api/projects/#get-a-single-project
  private readonly getProject: Handler = (request, answer, user) => {
    const project = this.visibleProject(request, answer, user);
    if (project) answer.json(200, this.projectJson(project), this.headers());
  };

  // https://docs.gitlab.com/api/projects/#edit-a-project (`topics` replaces the project's topics)
  private readonly editProject: Handler = async (request, answer, user) => {
    const project = this.visibleProject(request, answer, user);
    if (!project) return;
    if (!this.isMember(user, project)) return this.error(answer, 403, '403 Forbidden');
    const body = await request.json<{ topics?: unknown }>();
    if (Array.isArray(body.topics)) {
      const topics: string[] = [];
      for (const topic of body.topics.map((value) => String(value).trim()).filter(Boolean))
        if (!topics.some((known) => known.toLowerCase() === topic.toLowerCase())) topics.push(topic);
      project.topics = topics;
    }
    answer.json(200, this.projectJson(project), this.headers());
  };

  // https://docs.gitlab.com/api/repository_files/#get-file-metadata-only
  private readonly fileMetadata: Handler = (request, answer, user) => {
    const found = this.file(request, answer, user, true);
    if (found) answer.empty(200, this.headers(this.fileHeaders(request, found)));
  };

  /**
   * https://docs.gitlab.com/api/repository_files/#get-raw-file-from-repository: the blob, or with `lfs=true`
   * the LFS object a pointer names, when the project has it (`lib/api/files.rb`: `@blob.stored_externally?`,
   * 404 for an object the project lacks), sent as an uploaded file is (`present_carrierwave_file!`).
   */
  private readonly rawFile: Handler = async (request, answer, user) => {
    const found = this.file(request, answer, user, false);
    if (!found) return;
    const pointer = request.url.searchParams.get('lfs') === 'true' ? gitlabLfsPointer(found.content) : null;
    if (pointer) {
      const object = found.project.lfsObjects.get(pointer.oid);
      if (!object) return this.error(answer, 404, '404 Not found');
      return this.sendStored(answer, object, {});
    }
    const headers = { ...this.fileHeaders(request, found), 'content-type': 'text/plain; charset=utf-8' };
    await this.sendStored(answer, found.content, headers);
  };

  /** Bytes sent whole (raw blobs are: GitLab documents no Range support), or through the object storage. */
  private async sendStored(
    answer: FakeAnswer,
    content: Buffer,
    headers: Record<string, string>,
  ): Promise<void> {
    if (this.settings.redirectDownloads && this.storage) {
      const key = randomBytes(8).toString('hex');
      this.stored.set(key, content);
      const location = `${this.storage.origin}/objects/${key}?X-Signature=fake`;
      return answer.empty(302, this.headers({ location }));
    }
    await answer.send(200, content, this.headers(headers));
  }

  // https://docs.gitlab.com/api/commits/#list-repository-commits (no totals: https://docs.gitlab.com/api/commits/#pagination-response-headers)
  private readonly listCommits: Handler = (request, answer, user) => {
    const project = this.readableRepository(request, answer, user);
    if (!project) return;
    const head = this.commitAt(project, request.url.searchParams.get('ref_name'));
    const path = request.url.searchParams.get('path');
    const history = head ? project.commits.slice(0, project.commits.indexOf(head) + 1).reverse() : [];
    const touching = path
      ? history.filter((commit, index) => this.touches(commit, history[index + 1], path))
      : history;
    const { page, headers } = this.offsetPage(request, touching, false);
    answer.json(
      200,
      page.map((commit) => this.commitJson(project, commit)),
      this.headers(headers),
    );
  };

  // https://docs.gitlab.com/api/commits/#get-a-single-commit
  private readonly getCommit: Handler = (request, answer, user) => {
    const project = this.readableRepository(request, answer, user);
    if (!project) return;
    const commit = this.commitAt(project, request.params.sha);
    if (!commit) return this.error(answer, 404, '404 Commit Not Found');
    answer.json(200, this.commitJson(project, commit), this.headers());
  };

  /** Whether `commit` changed `path` (a file, or anything in a folder) from its parent. */
  private touches(commit: FakeCommit, parent: FakeCommit | undefined, path: string): boolean {
    const inside = (candidate: string) => candidate === path || candidate.startsWith(`${path}/`);
    const paths = new Set([...commit.files.keys(), ...(parent?.files.keys() ?? [])].filter(inside));
    return [...paths].some((candidate) => {
      const before = parent?.files.get(candidate);
      const after = commit.files.get(candidate);
      return !before || !after || !before.equals(after);
    });
  }

  /** What GitLab finds wrong with a new project's name and path, by field (none: an empty object). */
  private projectProblems(user: FakeUser, name: string, path: string): Record<string, string[]> {
    const problems: Record<string, string[]> = {};
    // Gitlab::Regex.project_name_regex and the path rules of https://docs.gitlab.com/user/reserved_names/
    if (
      !/^[\p{Alphabetic}\p{Nd}_\u00A9-\u{1F9FF}][\p{Alphabetic}\p{Nd}\p{Pd}_.+ \u00A9-\u{1F9FF}]*$/u.test(
        name,
      )
    )
      problems.name = [
        "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.",
      ];
    if (!/^[a-zA-Z0-9]([a-zA-Z0-9]|[._-](?![._-]))*$/.test(path) || /[._-]$/.test(path))
      problems.path = [
        "can contain only letters, digits, '_', '-' and '.'. Cannot start or end with a special character",
      ];
    const mine = this.projects.filter((project) => project.owner.id === user.id);
    if (mine.some((project) => project.name === name)) (problems.name ??= []).push('has already been taken');
    if (mine.some((project) => project.path.toLowerCase() === path.toLowerCase()))
      (problems.path ??= []).push('has already been taken');
    return problems;
  }

  // https://docs.gitlab.com/api/projects/#create-a-project
  private readonly createProject: Handler = async (request, answer, user) => {
    const body = await request.json<{
      name?: string;
      path?: string;
      visibility?: string;
      initialize_with_readme?: boolean;
    }>();
    if (!body.name && !body.path)
      return answer.json(
        400,
        { error: 'name, path are missing, at least one parameter must be provided' },
        this.headers(),
      );
    const name = body.name ?? body.path!;
    const path = body.path ?? name;
    const problems = this.projectProblems(user, name, path);
    if (Object.keys(problems).length > 0) return answer.json(400, { message: problems }, this.headers());
    const visibility =
      (['private', 'internal', 'public'] as const).find((value) => value === body.visibility) ?? 'private';
    const project = this.newProject(user, name, path, { visibility });
    this.projects.push(project);
    if (body.initialize_with_readme) {
      project.branch = this.settings.instanceDefaultBranch ?? 'main';
      this.addCommit(project, 'Initial commit', new Map([['README.md', Buffer.from(`# ${name}\n`)]]));
    }
    answer.json(201, this.projectJson(project), this.headers());
  };

  /**
   * https://docs.gitlab.com/api/repositories/#list-repository-tree, with keyset pagination when asked for
   * (`pagination=keyset`, https://docs.gitlab.com/api/rest/#keyset-based-pagination):
   * a `Link` to the next page carrying a `page_token` (opaque to clients) while entries remain; offset pages
   * otherwise, or always on an older GitLab.
   */
  private readonly tree: Handler = (request, answer, user) => {
    const project = this.readableRepository(request, answer, user);
    if (!project) return;
    const query = request.url.searchParams;
    const commit = this.commitAt(project, query.get('ref'));
    if (!commit) return this.error(answer, 404, '404 Tree Not Found');
    const entries = treeEntries(commit, (query.get('path') ?? '').replace(/^\/+|\/+$/g, ''));
    // GitLab's answer for a path that is no folder is not documented; this fake answers as for a missing ref
    if (!entries) return this.error(answer, 404, '404 Tree Not Found');
    if (!(this.settings.keysetTrees && query.get('pagination') === 'keyset')) {
      const { page, headers } = this.offsetPage(request, entries);
      return answer.json(200, page, this.headers(headers));
    }
    const perPage = perPageOf(request);
    const token = query.get('page_token');
    const start =
      token === null
        ? 0
        : entries.findIndex((entry) => Buffer.from(entry.path).toString('base64url') === token) + 1;
    const page: TreeEntryJson[] = entries.slice(start, start + perPage);
    const headers: Record<string, string> = {};
    if (start + perPage < entries.length) {
      const next = new URL(request.url.pathname + request.url.search, this.server.origin);
      next.searchParams.set('page_token', Buffer.from(page.at(-1)!.path).toString('base64url'));
      headers.link = `<${next.href}>; rel="next"`;
    }
    answer.json(200, page, this.headers(headers));
  };

  /** The file a files route names, at its `ref`; answers 404 (and 400 without a required ref) otherwise. */
  private file(
    request: FakeRequest,
    answer: FakeAnswer,
    user: FakeUser,
    refRequired: boolean,
  ): { commit: FakeCommit; path: string; content: Buffer; project: FakeProject } | null {
    const project = this.readableRepository(request, answer, user);
    if (!project) return null;
    const ref = request.url.searchParams.get('ref');
    if (refRequired && !ref) {
      answer.json(400, { error: 'ref is missing' }, this.headers());
      return null;
    }
    const commit = this.commitAt(project, ref);
    if (!commit) {
      this.error(answer, 404, '404 Commit Not Found');
      return null;
    }
    const path = request.params.file_path;
    const content = commit.files.get(path);
    if (!content) {
      this.error(answer, 404, '404 File Not Found');
      return null;
    }
    return { commit, path, content, project };
  }

  /** The `X-Gitlab-*` headers of a file (https://docs.gitlab.com/api/repository_files/#get-file-metadata-only). */
  private fileHeaders(
    request: FakeRequest,
    found: { commit: FakeCommit; path: string; content: Buffer; project: FakeProject },
  ): Record<string, string> {
    const history = found.project.commits.slice(0, found.project.commits.indexOf(found.commit) + 1).reverse();
    const last =
      history.find((commit, index) => this.touches(commit, history[index + 1], found.path)) ?? found.commit;
    return {
      'x-gitlab-blob-id': gitBlobId(found.content),
      'x-gitlab-commit-id': found.commit.id,
      'x-gitlab-content-sha256': sha256(found.content),
      'x-gitlab-encoding': 'base64',
      'x-gitlab-file-name': found.path.split('/').at(-1)!,
      'x-gitlab-file-path': found.path,
      'x-gitlab-last-commit-id': last.id,
      'x-gitlab-ref': request.url.searchParams.get('ref') ?? found.project.branch ?? '',
      'x-gitlab-size': String(found.content.length),
      'x-gitlab-execute-filemode': 'false',
    };
  }

  /**
   * https://docs.gitlab.com/api/commits/#create-a-commit-with-multiple-files-and-actions: one commit of many
   * actions (the refusals' wording is GitLab's, from its commits service). An empty repository takes a commit on any branch (it becomes the default);
   * otherwise the branch must exist. `create` of an existing file and `update` of a missing one are refused
   * with 400, as is a path where a folder (or, above it, a file) stands.
   */
  private readonly createCommit: Handler = async (request, answer, user) => {
    const project = this.readableRepository(request, answer, user);
    if (!project) return;
    if (!this.isMember(user, project)) return this.error(answer, 403, '403 Forbidden');
    let body: { branch?: string; commit_message?: string; actions?: CommitAction[] };
    try {
      body = await request.json();
    } catch {
      return answer.json(
        400,
        { error: 'The provided content-type is not supported or the body is not JSON.' },
        this.headers(),
      );
    }
    if (!body.branch) return answer.json(400, { error: 'branch is missing' }, this.headers());
    if (!body.commit_message) return answer.json(400, { error: 'commit_message is missing' }, this.headers());
    if (!Array.isArray(body.actions) || body.actions.length === 0)
      return answer.json(400, { error: 'actions is missing' }, this.headers());
    const head = project.commits.at(-1);
    if (head && body.branch !== project.branch)
      return this.error(answer, 400, 'You can only create or edit files when you are on a branch');
    const files = new Map(head?.files ?? []);
    const emptyFolders = new Set(head?.emptyFolders ?? []);
    const probe: FakeCommit = { id: '', message: '', committedDate: '', parentIds: [], files, emptyFolders };
    // the attributes of the branch as it was before this commit (`Lfs::FileTransformer#cached_attributes`)
    const attributes = head?.files.get('.gitattributes');
    for (const action of body.actions) {
      const problem = this.applyAction(probe, files, emptyFolders, action, (path, content) =>
        project.lfsEnabled && action.action === 'create' && isLfsTracked(attributes, path)
          ? this.storeLfsObject(project, content)
          : content,
      );
      if (problem) return this.error(answer, 400, problem);
    }
    if (!head) project.branch = body.branch;
    const commit = this.addCommit(project, body.commit_message, files, emptyFolders);
    answer.json(
      201,
      {
        ...this.commitJson(project, commit),
        stats: { additions: 0, deletions: 0, total: 0 },
        status: null,
        project_id: project.id,
        last_pipeline: null,
      },
      this.headers(),
    );
  };

  /**
   * One action of a commit. `stored` is what git keeps for a created file's content: a `create` of a path the
   * branch's `.gitattributes` sends to LFS is kept as an LFS object and a pointer (`Files::MultiService#
   * actions_after_lfs_transformation`, `Lfs::FileTransformer#new_file`, in gitlab-org/gitlab's
   * `app/services/files/multi_service.rb` and `app/services/lfs/file_transformer.rb`); an `update` is not.
   */
  private applyAction(
    state: FakeCommit,
    files: Map<string, Buffer>,
    emptyFolders: Set<string>,
    action: CommitAction,
    stored: (path: string, content: Buffer) => Buffer,
  ): string | null {
    const path = action.file_path ?? '';
    if (
      path === '' ||
      path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')
    )
      return 'Your changes could not be committed, because the file path is invalid';
    if (action.action !== 'create' && action.action !== 'update') return `Unknown action '${action.action}'`;
    if (isFolder(state, path) && !files.has(path)) return 'A directory with this name already exists';
    const segments = path.split('/');
    for (let depth = 1; depth < segments.length; depth++)
      if (files.has(segments.slice(0, depth).join('/'))) return 'A file with this name already exists';
    if (action.action === 'create' && files.has(path)) return 'A file with this name already exists';
    if (action.action === 'update' && !files.has(path)) return "A file with this name doesn't exist";
    const content = Buffer.from(action.content ?? '', action.encoding === 'base64' ? 'base64' : 'utf8');
    const received = this.settings.alterCommitted ? this.settings.alterCommitted(path, content) : content;
    files.set(path, stored(path, received));
    for (let depth = 1; depth < segments.length; depth++)
      emptyFolders.delete(segments.slice(0, depth).join('/'));
    return null;
  }

  /** Serves downloads from `storage`, a fake object storage (no credentials: the URL is signed), when `redirectDownloads` is set. */
  useStorage(storage: FakeServer): void {
    this.storage = storage;
    storage.route('GET', '/objects/{key}', async (request, answer) => {
      const content = this.stored.get(request.params.key);
      if (!content) return answer.json(404, { message: 'NoSuchKey' });
      await answer.send(200, content, {}, true);
    });
  }
}
