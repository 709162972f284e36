import { bindSession, type SessionOperations } from '../bound-session';
import type { Connector, ConnectorDefinition, ConnectorSession, TargetStatus } from '../connector';
import { forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { withZippedFolders } from '../zipped-folders';
import { FigshareApi } from './api';
import { getResource } from './detail';
import { userName } from './entities';
import { keywords, setKeywords } from './keywords';
import { listResources } from './listing';
import {
  DEFAULT_API_URL,
  DEFAULT_FILES_URL,
  MAX_PAGE_SIZE,
  validateOptions,
  type FigshareOptions,
} from './options';
import type { FigshareSessionContext } from './session-context';
import { walk } from './walking';
import { createProject, openWriter } from './writing';
import { portableNameProblem } from '../name-rules';

const FIGSHARE_OPERATIONS: SessionOperations<FigshareSessionContext> = {
  listResources,
  getResource,
  walk,
  createProject,
  openWriter,
  keywords,
  setKeywords,
};

class FigshareConnector implements Connector {
  /** FigShare computes an md5 of every file it stores (`computed_md5`, https://docs.figshare.com/#private_file) */
  readonly hashAlgorithms = ['md5'];
  readonly nameProblem = portableNameProblem;

  constructor(
    private readonly upstream: Upstream,
    private readonly perPage: number,
    private readonly statusTimeoutMs: number,
  ) {}

  /**
   * Checks the token by reading the account it belongs to (https://docs.figshare.com/#private_account), which
   * also names the user. FigShare refuses a token it does not know with 403.
   */
  async open(token: string): Promise<ConnectorSession> {
    const api = new FigshareApi(this.upstream.as({ authorization: `token ${token}` }));
    const account = await forbiddenAsInvalidToken(api.account());
    const context = { api, username: userName(account), perPage: this.perPage };
    return bindSession(context.username, context, FIGSHARE_OPERATIONS);
  }

  /** Whether the API answers at all: without a token its account endpoint answers 403. */
  status(): Promise<TargetStatus> {
    return this.upstream.probe('account', this.statusTimeoutMs);
  }
}

export const figshareConnector: ConnectorDefinition<FigshareOptions> = {
  name: 'figshare',
  validateOptions,
  create(options, context) {
    // the file host serves the bytes of files not yet published only to their owner's token
    const upstream = new Upstream('FigShare', options.api_url ?? DEFAULT_API_URL, context.upstream, [
      options.files_url ?? DEFAULT_FILES_URL,
    ]);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE);
    // FigShare keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(new FigshareConnector(upstream, perPage, context.statusTimeoutMs), context);
  },
};
