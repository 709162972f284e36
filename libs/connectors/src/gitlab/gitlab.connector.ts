import { GIT_BLOB_SHA1 } from '@app/fixity';
import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import { SEARCH_FILTERS, type ConnectorDefinition } from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { gitNameProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { GitlabApi } from './api';
import * as operations from './operations';
import {
  DEFAULT_API_URL,
  DEFAULT_COMMIT_BATCH_BYTES,
  MAX_PER_PAGE,
  validateOptions,
  type GitlabOptions,
} from './options';
import type { GitlabSession } from './session';

/** A token no HTTP header can carry (empty, or with characters a header value may not hold) cannot be GitLab's. */
const UNSENDABLE_TOKEN = /^$|[^\t\x20-\x7e\x80-\xff]/;

export const gitlabConnector: ConnectorDefinition<GitlabOptions> = {
  name: 'gitlab',
  capabilities: capabilities({
    searchFilters: SEARCH_FILTERS,
    abilities: ['write', 'folders', 'keywords', 'gitLfs'],
  }),
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('GitLab', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings = {
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
        return bindSession<GitlabSession>(user.username, { ...settings, api }, operations);
      },
    });
  },
};
