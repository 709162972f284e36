import { GIT_BLOB_SHA1 } from '@app/fixity';
import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import { SEARCH_FILTERS, type ConnectorDefinition } from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { gitNameProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { GitHubApi, SECONDARY_RATE_LIMITS } from './api';
import { GitHubLfs } from './lfs';
import { DEFAULT_API_URL, MAX_PER_PAGE, gitHostOf, validateOptions, type GitHubOptions } from './options';
import * as operations from './operations';
import type { GitHubSession } from './session';
import { MAX_FILE_BYTES, fileSizeProblem } from './writing';

/** What a token may hold to go into a header: visible ASCII. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

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
        return bindSession<GitHubSession>(login, { ...settings, api: api.withLfs(lfs) }, operations);
      },
    });
  },
};
