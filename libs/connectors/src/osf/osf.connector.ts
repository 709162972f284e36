import { bindSession, type SessionOperations } from '../bound-session';
import type { Connector, ConnectorDefinition, ConnectorSession, TargetStatus } from '../connector';
import { Upstream } from '../http';
import { OsfApi } from './api';
import { getResource } from './detail';
import { related, type OsfUser } from './entities';
import { keywords, setKeywords } from './keywords';
import { listResources } from './listing';
import { DEFAULT_API_URL, DEFAULT_FILES_URL, validateOptions, type OsfOptions } from './options';
import type { OsfSessionContext } from './session-context';
import { walk } from './walking';
import { WaterButler } from './waterbutler';
import { createProject, openWriter } from './writing';
import { pathSegmentProblem } from '../name-rules';

const OSF_OPERATIONS: SessionOperations<OsfSessionContext> = {
  listResources,
  getResource,
  walk,
  createProject,
  openWriter,
  keywords,
  setKeywords,
};

class OsfConnector implements Connector {
  /** osfstorage keeps both of every file; files of other providers have none */
  readonly hashAlgorithms = ['sha256', 'md5'];
  readonly nameProblem = pathSegmentProblem;

  constructor(
    private readonly upstream: Upstream,
    private readonly perPage: number,
    private readonly publicProjects: boolean,
    private readonly statusTimeoutMs: number,
  ) {}

  /** Checks the token with `users/me/` (https://developer.osf.io/#operation/users_read): 401 when OSF refuses it. */
  async open(token: string): Promise<ConnectorSession> {
    const http = this.upstream.as({ authorization: `Bearer ${token}` });
    const api = new OsfApi(http);
    const user = await api.entity<OsfUser>('users/me/');
    const context: OsfSessionContext = {
      api,
      files: new WaterButler(http),
      user: { id: user.id, fullName: user.attributes.full_name, nodesUrl: related(user, 'nodes') },
      perPage: this.perPage,
      publicProjects: this.publicProjects,
    };
    return bindSession(context.user.fullName, context, OSF_OPERATIONS);
  }

  /** Whether the API root answers (https://developer.osf.io/#operation/base_read), without credentials. */
  status(): Promise<TargetStatus> {
    return this.upstream.probe('', this.statusTimeoutMs);
  }
}

export const osfConnector: ConnectorDefinition<OsfOptions> = {
  name: 'osf',
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('OSF', options.api_url ?? DEFAULT_API_URL, context.upstream, [
      options.files_url ?? DEFAULT_FILES_URL,
    ]);
    return new OsfConnector(
      upstream,
      options.per_page ?? context.perPage,
      options.public ?? false,
      context.statusTimeoutMs,
    );
  },
};
