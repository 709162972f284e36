import { ConnectorError } from '../connector-error';
import type { UpstreamClient } from '../http';
import { WebdavApi } from './api';
import { PROPFIND_WITH_PRINCIPAL_BODY, type DavEntry } from './entities';
import { forUser, principalProbe, USER_PLACEHOLDER } from './options';

/** A user's files root as found: the user's name there, the API at the root, and the root's entry. */
export interface UserRoot {
  user: string;
  api: WebdavApi;
  root: DavEntry;
}

/** The user id a principal's href ends in (`.../principals/users/<id>/`). */
function idOf(principal: string | null | undefined): string | undefined {
  if (!principal) return undefined;
  const segments = new URL(principal, 'http://principal.invalid').pathname.split('/').filter(Boolean);
  try {
    return segments.length > 0 ? decodeURIComponent(segments[segments.length - 1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The root of the token's user's files. Nextcloud names it by the user's id, which differs from the login where
 * users log in by e-mail or through SSO (Sciebo, SURFdrive): a login that names no root answers 404, and one that
 * is another user's id an empty folder (apps/dav lib/Files/RootCollection.php). So the server is asked whose the
 * credentials are (RFC 5397 `current-user-principal`, https://www.rfc-editor.org/rfc/rfc5397): with the PROPFIND
 * of the login's root, at no extra request, and of the DAV root where the login names none. Where the principal
 * names another id whose root exists, that root is the user's. A server that names no principal keeps the login.
 */
export async function findUserRoot(http: UpstreamClient, template: string, login: string): Promise<UserRoot> {
  const byLogin = new WebdavApi(http, forUser(template, login));
  const root = await byLogin.stat([], PROPFIND_WITH_PRINCIPAL_BODY);
  if (!template.includes(USER_PLACEHOLDER)) return found(login, byLogin, root);
  const id = idOf(root ? root.principal : await byLogin.principalAt(principalProbe(template)));
  if (id === undefined || id === login) return found(login, byLogin, root);
  const byId = new WebdavApi(http, forUser(template, id));
  const own = await byId.stat([]);
  // a principal whose id names no root (a server that names principals otherwise) leaves the login's root
  return own || !root ? found(id, byId, own) : found(login, byLogin, root);
}

function found(user: string, api: WebdavApi, root: DavEntry | null): UserRoot {
  if (!root)
    throw new ConnectorError(401, `Token is invalid: ${api.name} has no files root for the user '${user}'.`);
  if (!root.collection) throw new ConnectorError(502, `The WebDAV root of '${user}' is not a folder.`);
  return { user, api, root };
}
