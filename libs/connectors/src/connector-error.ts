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

/** What a token check finds, a 403 answering 401: for upstreams that refuse an unknown token with 403. */
export async function forbiddenAsInvalidToken<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (error) {
    if (error instanceof ConnectorError && error.status === 403) throw ConnectorError.invalidToken(403);
    throw error;
  }
}
