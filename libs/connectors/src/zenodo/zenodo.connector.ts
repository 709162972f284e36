import { bindSession, type SessionOperations } from '../bound-session';
import type { Connector, ConnectorDefinition, ConnectorSession, TargetStatus } from '../connector';
import { forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { withZippedFolders } from '../zipped-folders';
import { ZenodoApi } from './api';
import { getResource } from './detail';
import { userName } from './entities';
import { keywords, setKeywords } from './keywords';
import { listResources } from './listing';
import {
  DEFAULT_API_URL,
  DEFAULT_UPLOAD_TYPE,
  MAX_PAGE_SIZE,
  validateOptions,
  type ZenodoOptions,
} from './options';
import type { ZenodoSessionContext } from './session-context';
import { walk } from './walking';
import { createProject, openWriter } from './writing';
import { portableNameProblem } from '../name-rules';

const ZENODO_OPERATIONS: SessionOperations<ZenodoSessionContext> = {
  listResources,
  getResource,
  walk,
  createProject,
  openWriter,
  keywords,
  setKeywords,
};

type SessionSettings = Omit<ZenodoSessionContext, 'api' | 'username'>;

class ZenodoConnector implements Connector {
  /** Zenodo keeps an md5 of every file (https://developers.zenodo.org/#deposition-files) */
  readonly hashAlgorithms = ['md5'];
  readonly nameProblem = portableNameProblem;

  constructor(
    private readonly upstream: Upstream,
    private readonly settings: SessionSettings,
    private readonly statusTimeoutMs: number,
  ) {}

  /**
   * Checks the token with the cheapest authenticated call, a one-deposition page of the user's depositions
   * (https://developers.zenodo.org/#list), whose `owner` also names the user. Zenodo refuses a token it does
   * not know with 401 and one without the deposit scopes with 403: both are a token it will not take.
   */
  async open(token: string): Promise<ConnectorSession> {
    // in a header, never in the query string: URLs get logged
    const api = new ZenodoApi(this.upstream.as({ authorization: `Bearer ${token}` }));
    const [latest] = await forbiddenAsInvalidToken(api.depositions({ page: 1, size: 1 }));
    const context = { ...this.settings, api, username: userName(latest?.owner) };
    return bindSession(context.username, context, ZENODO_OPERATIONS);
  }

  /** Whether the deposit API answers at all: without a token it answers 401 (https://developers.zenodo.org/#quickstart-upload). */
  status(): Promise<TargetStatus> {
    return this.upstream.probe('deposit/depositions', this.statusTimeoutMs);
  }
}

export const zenodoConnector: ConnectorDefinition<ZenodoOptions> = {
  name: 'zenodo',
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('Zenodo', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings = {
      perPage: options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE),
      publish: options.publish ?? false,
      uploadType: options.upload_type ?? DEFAULT_UPLOAD_TYPE,
    };
    // Zenodo keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(new ZenodoConnector(upstream, settings, context.statusTimeoutMs), context);
  },
};
