import { ServiceError } from '@app/common';

/** A failure that a target reported, carrying the HTTP status the API answers with. */
export class ConnectorError extends ServiceError {
  static invalidToken(upstreamStatus = 401): ConnectorError {
    return new ConnectorError(401, `Token is invalid. Response returned a ${upstreamStatus} status code.`);
  }

  static unknownResource(id: string): ConnectorError {
    return new ConnectorError(404, `Resource with id '${id}' not found for this user.`);
  }

  static forbidden(): ConnectorError {
    return new ConnectorError(403, 'User does not have access to this resource with the token provided.');
  }

  /** A file where a container was wanted (to write into). */
  static notAContainer(id: string): ConnectorError {
    return new ConnectorError(400, `The Resource provided, ${id}, is not a container`);
  }

  static gone(): ConnectorError {
    return new ConnectorError(410, 'The requested resource is no longer available.');
  }
}

/**
 * What `lookup` finds, or null when it names nothing the user may see (403, 404, 410): an id search finds
 * nothing there rather than failing.
 */
export async function foundOrNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof ConnectorError && [403, 404, 410].includes(error.status)) return null;
    throw error;
  }
}

/** Whether a target's refusal may mean a resource that is not the user's: 403 (someone else's) or 404. */
export function isNotTheUsers(error: unknown): boolean {
  return error instanceof ConnectorError && (error.status === 403 || error.status === 404);
}

/**
 * The user's own resource as `own` reads it, or, when the target refuses it as not the user's (403, 404), the
 * published resource of someone else that `published` reads by the same id. When there is no such published
 * resource either (403, 404), `own`'s refusal stands; any other failure of `published` (410: deleted) is
 * answered as it is.
 */
export async function ownOrPublished<Own, Published>(
  own: () => Promise<Own>,
  published: () => Promise<Published>,
): Promise<{ own: true; found: Own } | { own: false; found: Published }> {
  try {
    return { own: true, found: await own() };
  } catch (error) {
    if (!isNotTheUsers(error)) throw error;
    try {
      return { own: false, found: await published() };
    } catch (publishedError) {
      throw isNotTheUsers(publishedError) ? error : publishedError;
    }
  }
}

/** What ownOrPublished read, refused with 403 and `message` when it is someone else's published resource. */
export function requireOwn<Read extends { own: boolean }>(read: Read, message: string): Read {
  if (!read.own) throw new ConnectorError(403, message);
  return read;
}

/** What a token check finds, a 403 answering 401: for upstreams that refuse an unknown token with 403. */
export async function forbiddenAsInvalidToken<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (error) {
    if (error instanceof ConnectorError && error.status === 403) throw ConnectorError.invalidToken(403);
    throw error;
  }
}
