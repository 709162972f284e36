import { bindSession } from '../bound-session';
import type { ConnectorDefinition } from '../connector';
import { remoteConnector } from '../remote-connector';
import { forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { withZippedFolders } from '../zipped-folders';
import { FigshareApi } from './api';
import { userName } from './entities';
import {
  DEFAULT_API_URL,
  DEFAULT_FILES_URL,
  MAX_PAGE_SIZE,
  validateOptions,
  type FigshareOptions,
} from './options';
import * as operations from './operations';
import type { FigshareSession } from './session';
import { portableNameProblem } from '../name-rules';
import { capabilities } from '../capabilities';

export const figshareConnector: ConnectorDefinition<FigshareOptions> = {
  name: 'figshare',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id'],
    abilities: ['write', 'zippedFolders', 'keywords', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    // the file host serves the bytes of files not yet published only to their owner's token
    const upstream = new Upstream('FigShare', options.api_url ?? DEFAULT_API_URL, context.upstream, [
      options.files_url ?? DEFAULT_FILES_URL,
    ]);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE);
    const connector = remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // FigShare computes an md5 of every file it stores (`computed_md5`, https://docs.figshare.com/#private_file)
      hashAlgorithms: ['md5'],
      nameProblem: portableNameProblem,
      // without a token the account endpoint answers 403
      probePath: 'account',
      /*
       * Reading the account the token belongs to (https://docs.figshare.com/#private_account) checks it and
       * names the user. FigShare refuses a token it does not know with 403.
       */
      async open(token) {
        const api = new FigshareApi(upstream.as({ authorization: `token ${token}` }));
        const account = await forbiddenAsInvalidToken(api.account());
        return bindSession<FigshareSession>(userName(account), { api, perPage }, operations);
      },
    });
    // FigShare keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(connector, context);
  },
};
