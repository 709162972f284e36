import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { ConnectorError } from '../connector-error';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import { webdavNameProblem } from './names';
import {
  DEFAULT_CHUNK_MIB,
  MAX_PAGE_SIZE,
  forUser,
  sharedRoot,
  uploadsTemplate,
  validateOptions,
  type WebdavOptions,
} from './options';
import * as operations from './operations';
import type { WebdavSession } from './session';
import { findUserRoot } from './user-root';

/** `<login>:<app password>`: the login (which names the root, or its user) and the Basic credentials (RFC 7617). */
function credentialsOf(token: string): { login: string; authorization: string } {
  const colon = token.indexOf(':');
  // a user name cannot hold a colon in Basic auth, and neither part may be empty
  if (colon <= 0 || colon === token.length - 1) throw ConnectorError.invalidToken();
  return {
    login: token.slice(0, colon),
    authorization: `Basic ${Buffer.from(token, 'utf8').toString('base64')}`,
  };
}

export const webdavConnector: ConnectorDefinition<WebdavOptions> = {
  name: 'webdav',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id'],
    abilities: ['write', 'folders', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    const shared = sharedRoot(options.api_url);
    // the token goes to the root's origin only: never to a host a redirect points to
    const upstream = new Upstream('WebDAV', shared.href, context.upstream);
    const uploads = uploadsTemplate(options);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE);
    const chunkBytes = (options.chunk_mib ?? DEFAULT_CHUNK_MIB) * (1 << 20);
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // Nextcloud and ownCloud keep SHA1 and MD5 in oc:checksums; elsewhere they are computed from the bytes
      hashAlgorithms: ['md5', 'sha1'],
      nameProblem: webdavNameProblem,
      // the shared part of the root: a server answers it (401 without credentials counts)
      probePath: shared.pathname,
      /*
       * The token's user names the root (`{user}`), or the user id the server names the login's principal
       * (findUserRoot); a PROPFIND of Depth 0 on it checks the token: 401 is a token the server refuses, a root
       * the user does not have is answered 401 too.
       */
      async open(token) {
        const { login, authorization } = credentialsOf(token);
        const { user, api } = await findUserRoot(upstream.as({ authorization }), options.api_url, login);
        const session: WebdavSession = {
          api,
          perPage,
          uploads: uploads === undefined ? undefined : forUser(uploads, user),
          chunkBytes,
        };
        return bindSession<WebdavSession>(user, session, operations);
      },
    });
  },
};
