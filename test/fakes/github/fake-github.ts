import { createHash } from 'node:crypto';
import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';
import { FILE_MODE, GitObjects, TREE_MODE, type TreeChange } from './git-objects';
import { gitRoutes } from './git-routes';
import { lfsRoutes } from './lfs-routes';
import { canPush, canRead, type FakeAccount, type FakeRepository, type Hosts } from './representations';
import { repositoryRoutes } from './repository-routes';

/** One request as a route handles it. */
export interface Call {
  request: FakeRequest;
  answer: FakeAnswer;
  /** the token's account; null for a request without a token */
  viewer: FakeAccount | null;
  /** what every answer carries: rate-limit state, API version, a `Link` header for pages */
  headers: Record<string, string>;
  reply(status: number, body: unknown): void;
  /** an error in GitHub's shape (basic-error): `{message, documentation_url, status}` */
  fail(status: number, message: string, extra?: Record<string, unknown>): void;
}

type RateResource = 'core' | 'search';
interface RateWindow {
  limit: number;
  remaining: number;
  /** Unix seconds */
  reset: number;
}

/** https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api */
const RATE_LIMITS: Record<RateResource, { limit: number; windowSeconds: number }> = {
  core: { limit: 5000, windowSeconds: 3600 },
  search: { limit: 30, windowSeconds: 60 },
};
const DOCS = 'https://docs.github.com/rest';
/** https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits */
const SECONDARY_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.';
/** Requests that create content, which GitHub's secondary limits count (the page above). */
const CONTENT_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export type SeedFiles = Record<string, string | Buffer>;

/**
 * GitHub's secondary limit on content creation, as tests set it: `limit` content-creating requests in each
 * window of `windowMs`; past it, GitHub answers `status` with a message saying so, and `Retry-After` only
 * when `retryAfter` (GitHub often sends none).
 */
export interface SecondaryLimit {
  limit: number;
  windowMs: number;
  status: 403 | 429;
  retryAfter: boolean;
}

/** The Git LFS pointer git-lfs commits for content (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md#the-pointer). */
export function lfsPointer(content: Buffer): { pointer: Buffer; oid: string } {
  const oid = createHash('sha256').update(content).digest('hex');
  const text = `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${content.length}\n`;
  return { pointer: Buffer.from(text), oid };
}

/**
 * The name GitHub gives a repository: each character outside `[A-Za-z0-9._-]` becomes `-` (a repository asked
 * for as "My Repo" is made as "My-Repo": https://github.com/defunkt/github-gem/pull/47,
 * https://github.com/PyGithub/PyGithub/issues/1622).
 */
export function repositoryName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '-');
}

/**
 * A stateful fake of GitHub's REST API v3 (https://docs.github.com/en/rest): the endpoints the GitHub connector
 * uses, with GitHub's paths, query parameters, headers (`Link` pages, `x-ratelimit-*`), statuses and JSON.
 * Repositories keep real git objects, so blob shas are real git blob ids. Tests seed accounts and
 * repositories, read back what was written, and inject faults through `server.inject`.
 */
export class FakeGitHub {
  readonly server: FakeServer;
  /** a second host that blob downloads redirect to, once `redirectBlobs` has started it */
  storage: FakeServer | null = null;
  /** the git host with Git LFS's batch API, and the host its objects are downloaded from (`startLfs`) */
  lfs: { gitHost: FakeServer; storage: FakeServer } | null = null;
  /** GitHub's secondary limit on content creation; none unless a test sets one */
  secondaryLimit: SecondaryLimit | null = null;
  /** how many entries a tree listing holds before GitHub truncates it */
  treeEntryLimit = Number.POSITIVE_INFINITY;
  /** runs once, just before the next ref update: to move the branch as another client's push would */
  beforeNextRefUpdate: (() => void) | null = null;
  readonly repositories = new Map<number, FakeRepository>();
  private readonly accounts = new Map<string, FakeAccount>();
  private readonly tokens = new Map<string, FakeAccount>();
  private readonly samlProtected = new Set<FakeAccount>();
  private readonly rates = new Map<RateResource, RateWindow>();
  private contentWindow = { start: 0, count: 0 };
  private nextId = 1000;
  /** the fake's time for what it records: one second later at each change, so that orders are strict */
  private clock = Date.parse('2024-01-01T00:00:00Z');

  private constructor(prefix: string) {
    this.server = new FakeServer('GitHub', prefix);
    repositoryRoutes(this);
    gitRoutes(this);
  }

  /** `prefix`: `/api/v3` to stand for GitHub Enterprise Server, whose API sits below that path. */
  static async start(prefix = ''): Promise<FakeGitHub> {
    const fake = new FakeGitHub(prefix);
    await fake.server.start();
    return fake;
  }

  get hosts(): Hosts {
    return { api: this.server.url, web: this.server.origin };
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.storage?.stop();
    await this.lfs?.gitHost.stop();
    await this.lfs?.storage.stop();
  }

  /** Starts the git host (Git LFS's batch API) and the storage its objects come from; the git host's URL. */
  async startLfs(): Promise<string> {
    const gitHost = new FakeServer('GitHub git host');
    const storage = new FakeServer('GitHub LFS storage');
    lfsRoutes(this, gitHost, storage);
    this.lfs = { gitHost: await gitHost.start(), storage: await storage.start() };
    return gitHost.origin;
  }

  /** Blob downloads answer with a redirect to another host (GitHub says any request may be redirected). */
  async redirectBlobs(): Promise<FakeServer> {
    const storage = new FakeServer('GitHub storage');
    storage.route('GET', '/{repository_id}/{sha}', (request, answer) => {
      const content = this.repositories
        .get(Number(request.params.repository_id))
        ?.objects.blob(request.params.sha);
      return content ? answer.send(200, content) : answer.empty(404);
    });
    this.storage = await storage.start();
    return storage;
  }

  /** Everything seeded and written goes; accounts and tokens stay. */
  reset(): void {
    this.repositories.clear();
    this.rates.clear();
    this.server.clearFaults();
    this.treeEntryLimit = Number.POSITIVE_INFINITY;
    this.beforeNextRefUpdate = null;
    this.secondaryLimit = null;
    this.contentWindow = { start: 0, count: 0 };
    for (const host of [this.lfs?.gitHost, this.lfs?.storage]) {
      host?.clearFaults();
      host?.requests.splice(0);
    }
  }

  addAccount(
    login: string,
    options: { token?: string; organization?: boolean; samlProtected?: boolean } = {},
  ) {
    const account: FakeAccount = {
      login,
      id: this.nextId++,
      type: options.organization ? 'Organization' : 'User',
      createdAt: this.now(),
      members: new Set(),
    };
    this.accounts.set(login.toLowerCase(), account);
    if (options.token) this.tokens.set(options.token, account);
    if (options.samlProtected) this.samlProtected.add(account);
    return account;
  }

  account(login: string): FakeAccount | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  accountOfToken(token: string): FakeAccount | undefined {
    return this.tokens.get(token);
  }

  /** The repository `owner/name` (names are not case sensitive), whoever may see it. */
  repositoryNamed(owner: string, name: string): FakeRepository | undefined {
    return [...this.repositories.values()].find(
      (candidate) =>
        candidate.owner.login.toLowerCase() === owner.toLowerCase() &&
        candidate.name.toLowerCase() === name.toLowerCase(),
    );
  }

  /** Sets what is left of a rate limit, and when it resets. */
  setRateLimit(resource: RateResource, remaining: number, resetInSeconds: number): void {
    const reset = Math.ceil(Date.now() / 1000) + resetInSeconds;
    this.rates.set(resource, { limit: RATE_LIMITS[resource].limit, remaining, reset });
  }

  rateLimitJson() {
    const windows = Object.fromEntries(
      (Object.keys(RATE_LIMITS) as RateResource[]).map((resource) => {
        const window = this.window(resource);
        return [resource, { ...window, used: window.limit - window.remaining }];
      }),
    );
    return { resources: windows, rate: windows.core };
  }

  /** The fake's clock, one second on. */
  now(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /**
   * Makes a repository; with `autoInit` (or seeded files) it has a first commit on its default branch.
   * Each one is newer than any made before.
   */
  createRepository(
    owner: FakeAccount,
    name: string,
    options: {
      private?: boolean;
      description?: string | null;
      topics?: string[];
      defaultBranch?: string;
    } = {},
  ): FakeRepository {
    const now = this.now();
    const repository: FakeRepository = {
      id: this.nextId++,
      owner,
      name: repositoryName(name),
      description: options.description ?? null,
      private: options.private ?? false,
      topics: options.topics ?? [],
      createdAt: now,
      updatedAt: now,
      // set at creation, as full-repository (the description) has it never null
      pushedAt: now,
      defaultBranch: options.defaultBranch ?? 'main',
      branches: new Map(),
      objects: new GitObjects(),
      collaborators: new Set(),
      lfsObjects: new Map(),
    };
    this.repositories.set(repository.id, repository);
    return repository;
  }

  /**
   * A repository of `owner` holding `files` (a path ending in `/` is an empty folder), and `lfs`, files pushed
   * through Git LFS (git holds their pointers, the repository's LFS storage their content); empty without any.
   */
  seedRepository(
    owner: string,
    name: string,
    options: {
      files?: SeedFiles;
      lfs?: SeedFiles;
      topics?: string[];
      private?: boolean;
      defaultBranch?: string;
    } = {},
  ): FakeRepository {
    const account = this.account(owner) ?? this.addAccount(owner);
    const repository = this.createRepository(account, name, options);
    const pointers = Object.entries(options.lfs ?? {}).map(([path, content]) => {
      const { pointer, oid } = lfsPointer(Buffer.from(content));
      repository.lfsObjects.set(oid, Buffer.from(content));
      return [path, pointer];
    });
    const files = { ...options.files, ...Object.fromEntries(pointers) };
    if (Object.keys(files).length > 0) this.pushFiles(repository, files, 'Seed');
    return repository;
  }

  /** Commits files onto the default branch, as a push from another client would. */
  pushFiles(repository: FakeRepository, files: SeedFiles, message = 'Pushed elsewhere'): string {
    const objects = repository.objects;
    const changes: TreeChange[] = Object.entries(files).map(([path, content]) => ({
      path: path.replace(/\/$/, '').split('/'),
      entry: path.endsWith('/')
        ? { mode: TREE_MODE, type: 'tree', sha: objects.putTree([]) }
        : { mode: FILE_MODE, type: 'blob', sha: objects.putBlob(Buffer.from(content)) },
    }));
    const parent = this.head(repository);
    const tree = objects.changeTree(parent === undefined ? undefined : objects.commit(parent)?.tree, changes);
    return this.commitTree(repository, tree, parent === undefined ? [] : [parent], message);
  }

  /** Makes a commit of a tree and moves the default branch to it. */
  commitTree(repository: FakeRepository, tree: string, parents: string[], message: string): string {
    const commit = repository.objects.putCommit({
      tree,
      parents,
      message,
      date: this.now(),
      author: this.author(repository.owner),
    });
    this.moveBranch(repository, repository.defaultBranch, commit);
    return commit;
  }

  author(account: FakeAccount): { name: string; email: string } {
    return { name: account.login, email: `${account.id}+${account.login}@users.noreply.github.com` };
  }

  moveBranch(repository: FakeRepository, branch: string, commit: string): void {
    repository.branches.set(branch, commit);
    repository.pushedAt = repository.updatedAt = this.now();
  }

  head(repository: FakeRepository): string | undefined {
    return repository.branches.get(repository.defaultBranch);
  }

  /** The files on the default branch by path (an empty folder as `path/`). */
  files(repository: FakeRepository): Map<string, Buffer> {
    const head = this.head(repository);
    const tree = head === undefined ? undefined : repository.objects.commit(head)?.tree;
    return tree === undefined ? new Map() : repository.objects.files(tree);
  }

  /** How many commits the default branch has. */
  commitCount(repository: FakeRepository): number {
    const head = this.head(repository);
    return head === undefined ? 0 : repository.objects.history(head).length;
  }

  /** Registers a route whose requests are authenticated and counted against a rate limit (`rate: null`: none). */
  serve(
    method: string,
    template: string,
    handler: (call: Call) => void | Promise<void>,
    options: { rate?: RateResource | null; greedy?: string[] } = {},
  ): void {
    this.server.route(
      method,
      template,
      async (request, answer) => {
        const call = this.admit(request, answer, options.rate === undefined ? 'core' : options.rate);
        if (call) await handler(call);
      },
      options.greedy ?? [],
    );
  }

  /** A repository as the viewer may see it; otherwise answers 404 (403 for an organization enforcing SAML). */
  visible(call: Call, repository: FakeRepository | undefined): FakeRepository | undefined {
    if (!repository || !canRead(repository, call.viewer)) {
      call.fail(404, 'Not Found');
      return undefined;
    }
    if (call.viewer && this.samlProtected.has(repository.owner)) {
      // https://docs.github.com/en/authentication/authenticating-with-saml-single-sign-on/authorizing-a-personal-access-token-for-use-with-saml-single-sign-on
      call.fail(
        403,
        'Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.',
      );
      return undefined;
    }
    return repository;
  }

  /** The repository at `{owner}/{repo}` of a request (names are not case sensitive). */
  repositoryAt(call: Call, needsPush = false): FakeRepository | undefined {
    const { owner, repo } = call.request.params;
    const repository = this.visible(call, this.repositoryNamed(owner, repo));
    if (repository && needsPush && !canPush(repository, call.viewer)) {
      call.fail(403, 'Resource not accessible by personal access token');
      return undefined;
    }
    return repository;
  }

  /** Reads `per_page` (at most 100) and `page`, sets the `Link` header GitHub sends, and answers that page. */
  page<T>(call: Call, items: readonly T[]): T[] {
    const query = call.request.url.searchParams;
    const perPage = Math.min(100, positive(query.get('per_page')) ?? 30);
    const page = positive(query.get('page')) ?? 1;
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number, rel: string) => {
      const url = new URL(`${this.server.origin}${call.request.url.pathname}${call.request.url.search}`);
      url.searchParams.set('page', String(n));
      return `<${url.href}>; rel="${rel}"`;
    };
    // https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api
    const links = [
      ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
      ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
    ];
    if (links.length > 0) call.headers.link = links.join(', ');
    return items.slice((page - 1) * perPage, page * perPage);
  }

  private window(resource: RateResource): RateWindow {
    const now = Math.floor(Date.now() / 1000);
    let window = this.rates.get(resource);
    if (!window || now >= window.reset) {
      const { limit, windowSeconds } = RATE_LIMITS[resource];
      window = { limit, remaining: limit, reset: now + windowSeconds };
      this.rates.set(resource, window);
    }
    return window;
  }

  /** Checks the token and spends one request of the rate limit; answers 401 or 403 itself when it must. */
  private admit(request: FakeRequest, answer: FakeAnswer, rate: RateResource | null): Call | null {
    const headers: Record<string, string> = {
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
    };
    const call: Call = {
      request,
      answer,
      viewer: null,
      headers,
      reply: (status, body) => answer.json(status, body, headers),
      fail: (status, message, extra = {}) =>
        answer.json(status, { message, documentation_url: DOCS, status: String(status), ...extra }, headers),
    };
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const token = /^(?:bearer|token)\s+(\S+)$/i.exec(authorization)?.[1];
      call.viewer = (token && this.tokens.get(token)) || null;
      if (!call.viewer) {
        call.fail(401, 'Bad credentials');
        return null;
      }
    }
    if (rate === null) return call;
    const window = this.window(rate);
    const spent = window.remaining === 0;
    if (!spent) window.remaining--;
    Object.assign(headers, {
      'x-ratelimit-limit': String(window.limit),
      'x-ratelimit-remaining': String(window.remaining),
      'x-ratelimit-reset': String(window.reset),
      'x-ratelimit-used': String(window.limit - window.remaining),
      'x-ratelimit-resource': rate,
    });
    if (spent) {
      // a spent primary limit: 403 with x-ratelimit-remaining 0 (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api#rate-limit-errors)
      call.fail(403, `API rate limit exceeded for user ID ${call.viewer?.id ?? 0}.`);
      return null;
    }
    return this.withinSecondaryLimit(call) ? call : null;
  }

  /**
   * Counts a content-creating request against the secondary limit a test set; past it, answers as GitHub
   * does: 403 or 429, a message saying "secondary rate limit", and no `Retry-After` unless the limit gives one
   * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit).
   */
  private withinSecondaryLimit(call: Call): boolean {
    const limit = this.secondaryLimit;
    if (!limit || !CONTENT_METHODS.has(call.request.method)) return true;
    const now = Date.now();
    if (now - this.contentWindow.start >= limit.windowMs) this.contentWindow = { start: now, count: 0 };
    if (++this.contentWindow.count <= limit.limit) return true;
    if (limit.retryAfter) {
      const left = this.contentWindow.start + limit.windowMs - now;
      call.headers['retry-after'] = String(Math.max(1, Math.ceil(left / 1000)));
    }
    call.fail(limit.status, SECONDARY_LIMIT_MESSAGE, {
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    });
    return false;
  }
}

function positive(text: string | null): number | undefined {
  const value = Number(text);
  return text !== null && Number.isInteger(value) && value > 0 ? value : undefined;
}
