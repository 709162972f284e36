import { GIT_BLOB_SHA1 } from '@app/fixity';
import {
  SEARCH_FILTERS,
  type CollectionPage,
  type CollectionQuery,
  type ConnectorDefinition,
  type ConnectorSession,
  type RemoteFile,
  type RemoteFolder,
  type ResourceDetail,
  type ResourceSummary,
  type ResourceWriter,
  type WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import { GitHubApi, SECONDARY_RATE_LIMITS, type GitHubRepository } from './github-api';
import { GitHubLfs } from './lfs';
import { parseResourceId } from './ids';
import { listResources } from './listing';
import { numberedName, repositoryName, topicsOf } from './names';
import { DEFAULT_API_URL, MAX_PER_PAGE, gitHostOf, validateOptions, type GitHubOptions } from './options';
import { locate, repositorySummary, resourceDetail } from './resources';
import { walk } from './walking';
import { MAX_FILE_BYTES, fileSizeProblem, openWriter } from './writing';
import { gitNameProblem } from '../name-rules';
import { capabilities } from '../capabilities';

/** How many numbered names (`Title-2`, ...) are tried for a title the user already has. */
const NUMBERED_NAMES = 100;
/** What a token may hold to go into a header: visible ASCII. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

interface SessionSettings {
  perPage: number;
  /** whether created repositories are public */
  publicRepositories: boolean;
  /** the first wait of the shared client's retries, reused for waiting on a new repository */
  retryBaseMs: number;
}

class GitHubSession implements ConnectorSession {
  constructor(
    readonly username: string,
    private readonly api: GitHubApi,
    private readonly settings: SessionSettings,
  ) {}

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return listResources(this.api, query, this.settings.perPage);
  }

  getResource(id: string): Promise<ResourceDetail> {
    return resourceDetail(this.api, id);
  }

  walk(id: string): AsyncIterable<RemoteFolder | RemoteFile> {
    return walk(this.api, id);
  }

  /** A new repository with a first commit (the git data API needs one), its title numbered when taken. */
  async createProject(title: string): Promise<ResourceSummary> {
    const name = repositoryName(title);
    for (let n = 1; n <= NUMBERED_NAMES; n++) {
      const created = await this.api.createRepository(
        numberedName(name, n),
        !this.settings.publicRepositories,
      );
      if (created) return repositorySummary(created);
    }
    throw new ConnectorError(
      400,
      `The user already has repositories named ${name} to ${numberedName(name, NUMBERED_NAMES)}.`,
    );
  }

  openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter> {
    return openWriter(this.api, containerId, options, this.settings.retryBaseMs);
  }

  /** A repository's topics. */
  async keywords(id: string): Promise<string[]> {
    return this.api.topics(await this.repositoryWithTopics(id));
  }

  /** Replaces a repository's topics with the keywords made topics; the topics as GitHub stored them. */
  async setKeywords(id: string, keywords: readonly string[]): Promise<string[]> {
    return this.api.replaceTopics(await this.repositoryWithTopics(id), topicsOf(keywords));
  }

  /** Only repositories have topics: a folder or file id answers 400 (404 when it names nothing). */
  private async repositoryWithTopics(id: string): Promise<GitHubRepository> {
    const address = parseResourceId(id);
    if (!address) throw ConnectorError.unknownResource(id);
    if (address.path.length === 0) return this.api.repository(address.repositoryId, id);
    await locate(this.api, id);
    throw new ConnectorError(
      400,
      "On GitHub only repositories have keywords (their topics), not folders or files, so PresQT keyword features are not supported at GitHub's folder or file level.",
    );
  }
}

export const githubConnector: ConnectorDefinition<GitHubOptions> = {
  name: 'github',
  capabilities: capabilities({
    searchFilters: SEARCH_FILTERS,
    abilities: ['write', 'folders', 'keywords', 'gitLfs'],
    maxFileBytes: MAX_FILE_BYTES,
  }),
  validateOptions,
  create(options, context) {
    const apiUrl = options.api_url ?? DEFAULT_API_URL;
    const upstream = new Upstream('GitHub', apiUrl, context.upstream, [], SECONDARY_RATE_LIMITS);
    // the git host, where LFS objects are asked for; the user's token goes there and to the API only
    const gitHost = new Upstream(
      'GitHub LFS',
      options.git_url ?? gitHostOf(apiUrl),
      context.upstream,
      [],
      SECONDARY_RATE_LIMITS,
    );
    const settings = {
      perPage: Math.min(options.per_page ?? context.perPage, MAX_PER_PAGE),
      publicRepositories: options.public ?? false,
      retryBaseMs: context.upstream.retryBaseMs,
    };
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // a file's git blob id; for a file stored in Git LFS, its object's sha256
      hashAlgorithms: [GIT_BLOB_SHA1, 'sha256'],
      nameProblem: gitNameProblem,
      fileSizeProblem,
      // answers without a token and costs nothing of the rate limit (https://docs.github.com/en/rest/rate-limit/rate-limit)
      probePath: 'rate_limit',
      // `GET /user` checks the token (https://docs.github.com/en/rest/users/users#get-the-authenticated-user)
      async open(token) {
        if (!HEADER_SAFE.test(token)) throw ConnectorError.invalidToken();
        const api = new GitHubApi(upstream.as({ authorization: `Bearer ${token}` }));
        const login = await api.login();
        // git hosts take a token as the password of HTTP Basic, with the user's login
        // (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens#using-a-personal-access-token-on-the-command-line)
        const basic = Buffer.from(`${login}:${token}`).toString('base64');
        const lfs = new GitHubLfs(gitHost.as({ authorization: `Basic ${basic}` }), gitHost.as({}));
        return new GitHubSession(login, api.withLfs(lfs), settings);
      },
    });
  },
};
