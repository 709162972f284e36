import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { portableNameProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { withZippedFolders } from '../zipped-folders';
import { InvenioApi } from './api';
import { ownerOf } from './entities';
import { DEFAULT_API_URL, MAX_PAGE_SIZE, validateOptions, type InvenioRdmOptions } from './options';
import * as operations from './operations';
import { userNameOf } from './records';
import type { InvenioSession } from './session';

export const invenioRdmConnector: ConnectorDefinition<InvenioRdmOptions> = {
  name: 'invenio_rdm',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id', 'keywords'],
    abilities: ['write', 'zippedFolders', 'keywords', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('InvenioRDM', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE);
    const connector = remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // InvenioRDM keeps an md5 of every file, `md5:<hex>` (invenio-files-rest's checksums)
      hashAlgorithms: ['md5'],
      nameProblem: portableNameProblem,
      // the search of published records answers anyone
      probePath: 'records?size=1',
      /*
       * InvenioRDM has no "current user" endpoint, and a token it does not know makes the request anonymous
       * (invenio-oauth2server) rather than failing it. The user's own records are what an anonymous caller may
       * not search (RDM's permission policy, `can_search_drafts`: authenticated users), so a one-record page
       * of them is the check: 403 there is a token the instance does not take, answered as 401 before any
       * job. Its one hit, if any, names the user's number (`parent.access.owned_by.user`), and their profile
       * their name.
       */
      async open(token) {
        const api = new InvenioApi(upstream.as({ authorization: `Bearer ${token}` }));
        const page = await forbiddenAsInvalidToken(api.userRecords({ page: 1, size: 1 }));
        const username = await userNameOf(api, ownerOf(page.hits.hits[0]));
        return bindSession<InvenioSession>(username, { api, perPage }, operations);
      },
    });
    // InvenioRDM keeps no folders: a resource with folders is kept as one zip of a bag, and unpacked when read
    return withZippedFolders(connector, context);
  },
};
