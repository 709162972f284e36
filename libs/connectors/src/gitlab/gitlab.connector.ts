import { GIT_BLOB_SHA1 } from '@app/fixity';
import {
  SEARCH_FILTERS,
  type CollectionPage,
  type CollectionQuery,
  type Connector,
  type ConnectorContext,
  type ConnectorDefinition,
  type ConnectorSession,
  type RemoteFile,
  type RemoteFolder,
  type ResourceDetail,
  type ResourceSummary,
  type ResourceWriter,
  type WriterOptions,
} from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import { GitlabApi } from './gitlab-api';
import { decodeId } from './ids';
import { listResources, projectSummary } from './listing';
import {
  DEFAULT_API_URL,
  DEFAULT_COMMIT_BATCH_BYTES,
  MAX_PER_PAGE,
  validateOptions,
  type GitlabOptions,
  type Visibility,
} from './options';
import { numberedProjectName } from './project-name';
import { entrySummary, loadProject, locate, resourceDetail } from './resources';
import { walk } from './walking';
import { GitlabWriter } from './writing';
import { gitNameProblem } from '../name-rules';
import { capabilities } from '../capabilities';

/** How many numbered names `createProject` tries before giving up. */
const MAX_NAME_ATTEMPTS = 100;
/** A token no HTTP header can carry (empty, or with characters a header value may not hold) cannot be GitLab's. */
const UNSENDABLE_TOKEN = /^$|[^\t\x20-\x7e\x80-\xff]/;

interface SessionSettings {
  perPage: number;
  visibility: Visibility;
  batchBytes: number;
}

class GitlabSession implements ConnectorSession {
  constructor(
    readonly username: string,
    private readonly api: GitlabApi,
    private readonly settings: SessionSettings,
  ) {}

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return listResources(this.api, query, this.settings.perPage, (id) => this.findById(id));
  }

  /** The id filter: the resource with that id, if the user may see it. */
  private async findById(id: string): Promise<ResourceSummary | null> {
    const located = await foundOrNull(locate(this.api, id));
    if (!located) return null;
    return located.entry
      ? entrySummary(located.ref.projectId, located.entry)
      : projectSummary(located.project);
  }

  async getResource(id: string): Promise<ResourceDetail> {
    return resourceDetail(this.api, await locate(this.api, id));
  }

  async *walk(id: string): AsyncIterable<RemoteFolder | RemoteFile> {
    yield* walk(this.api, await locate(this.api, id));
  }

  async createProject(title: string): Promise<ResourceSummary> {
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      const { name, path } = numberedProjectName(title, attempt);
      const project = await this.api.createProject({
        name,
        path,
        visibility: this.settings.visibility,
        initialize_with_readme: false,
      });
      if (project) return projectSummary(project);
    }
    throw new ConnectorError(400, `Every name tried for a project titled '${title}' is taken at GitLab.`);
  }

  async openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter> {
    const container = await locate(this.api, containerId);
    if (container.entry?.type === 'blob')
      throw new ConnectorError(400, `The Resource provided, ${containerId}, is not a container`);
    return new GitlabWriter(this.api, container, {
      message: options.message,
      stagingDir: options.stagingDir,
      batchBytes: this.settings.batchBytes,
    });
  }

  async keywords(id: string): Promise<string[]> {
    const projectId = this.projectOnly(id);
    return (await loadProject(this.api, projectId, id)).topics ?? [];
  }

  async setKeywords(id: string, keywords: readonly string[]): Promise<string[]> {
    const projectId = this.projectOnly(id);
    await loadProject(this.api, projectId, id);
    return (await this.api.setTopics(projectId, keywords, id)).topics ?? [];
  }

  /** Keywords are a project's topics: files and folders have none. */
  private projectOnly(id: string): string {
    const ref = decodeId(id);
    if (!ref) throw ConnectorError.unknownResource(id);
    if (ref.path !== '')
      throw new ConnectorError(
        400,
        'On GitLab only projects have keywords (topics); files and folders have none.',
      );
    return ref.projectId;
  }
}

export const gitlabConnector: ConnectorDefinition<GitlabOptions> = {
  name: 'gitlab',
  capabilities: capabilities({
    searchFilters: SEARCH_FILTERS,
    abilities: ['write', 'folders', 'keywords', 'gitLfs'],
  }),
  validateOptions,
  create(options: GitlabOptions, context: ConnectorContext): Connector {
    const upstream = new Upstream('GitLab', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings: SessionSettings = {
      perPage: options.per_page ?? Math.min(context.perPage, MAX_PER_PAGE),
      visibility: options.visibility ?? 'private',
      batchBytes: options.commit_batch_bytes ?? DEFAULT_COMMIT_BATCH_BYTES,
    };
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      hashAlgorithms: ['sha256', GIT_BLOB_SHA1],
      nameProblem: gitNameProblem,
      // answers without a token (401 is an answer); https://docs.gitlab.com/api/version/
      probePath: 'version',
      // `GET /user` checks the token (https://docs.gitlab.com/api/users/#get-the-current-user)
      async open(token) {
        if (UNSENDABLE_TOKEN.test(token)) throw ConnectorError.invalidToken();
        const api = new GitlabApi(upstream.as({ 'private-token': token }));
        const user = await api.currentUser();
        return new GitlabSession(user.username, api, settings);
      },
    });
  },
};
