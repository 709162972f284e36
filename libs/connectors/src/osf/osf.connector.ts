import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { Upstream } from '../http';
import { pathSegmentProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { OsfApi } from './api';
import { accountOf, type OsfUser } from './entities';
import { DEFAULT_API_URL, fileServiceOrigins, validateOptions, type OsfOptions } from './options';
import * as operations from './operations';
import type { OsfSession } from './session';

export const osfConnector: ConnectorDefinition<OsfOptions> = {
  name: 'osf',
  capabilities: capabilities({
    searchFilters: ['title', 'id', 'author', 'keywords'],
    // OSF deletes a project whole; in an existing one it keeps each file's earlier versions
    abilities: ['write', 'folders', 'keywords', 'takesBackNewProjects'],
  }),
  validateOptions,
  create(options, context) {
    // each storage region has a file service of its own: the token goes to those listed, and no other
    const upstream = new Upstream(
      'OSF',
      options.api_url ?? DEFAULT_API_URL,
      context.upstream,
      fileServiceOrigins(options),
    );
    const perPage = options.per_page ?? context.perPage;
    const publicProjects = options.public ?? false;
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // osfstorage keeps both of every file; files of other providers have none
      hashAlgorithms: ['sha256', 'md5'],
      nameProblem: pathSegmentProblem,
      // the API root answers without credentials (https://developer.osf.io/#operation/base_read)
      probePath: '',
      // `users/me/` checks the token (https://developer.osf.io/#operation/users_read): 401 when OSF refuses it
      async open(token) {
        const api = new OsfApi(upstream.as({ authorization: `Bearer ${token}` }));
        const account = accountOf(await api.entity<OsfUser>('users/me/'));
        return bindSession<OsfSession>(
          account.fullName,
          { api, account, perPage, publicProjects, made: new Map() },
          operations,
        );
      },
    });
  },
};
