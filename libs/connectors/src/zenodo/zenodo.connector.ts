import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { portableNameProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { withZippedFolders } from '../zipped-folders';
import { ZenodoApi } from './api';
import { userName } from './entities';
import {
  DEFAULT_API_URL,
  DEFAULT_UPLOAD_TYPE,
  MAX_PAGE_SIZE,
  validateOptions,
  type ZenodoOptions,
} from './options';
import * as operations from './operations';
import type { ZenodoSession } from './session';

export const zenodoConnector: ConnectorDefinition<ZenodoOptions> = {
  name: 'zenodo',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id', 'keywords'],
    abilities: ['write', 'zippedFolders', 'keywords', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('Zenodo', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings = {
      perPage: options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE),
      publish: options.publish ?? false,
      uploadType: options.upload_type ?? DEFAULT_UPLOAD_TYPE,
    };
    const connector = remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // Zenodo keeps an md5 of every file (https://developers.zenodo.org/#deposition-files)
      hashAlgorithms: ['md5'],
      nameProblem: portableNameProblem,
      // without a token the deposit API answers 401 (https://developers.zenodo.org/#quickstart-upload)
      probePath: 'deposit/depositions',
      /*
       * The cheapest authenticated call, a one-deposition page of the user's depositions
       * (https://developers.zenodo.org/#list), whose `owner` also names the user (Zenodo's API tells only the
       * owner's number). Zenodo refuses a token it does not know with 401 and one without the deposit scopes
       * with 403: both are a token it will not take. The token goes in a header, never in the query string:
       * URLs get logged.
       */
      async open(token) {
        const api = new ZenodoApi(upstream.as({ authorization: `Bearer ${token}` }));
        const [latest] = await forbiddenAsInvalidToken(api.depositions({ page: 1, size: 1 }));
        return bindSession<ZenodoSession>(userName(latest?.owner), { ...settings, api }, operations);
      },
    });
    // Zenodo keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(connector, context);
  },
};
