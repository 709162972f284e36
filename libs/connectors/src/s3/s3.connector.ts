import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { ConnectorError, forbiddenAsInvalidToken } from '../connector-error';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import type { AccessKey } from './api';
import { DEFAULT_REGION, endpointOf, keyPrefixOf, validateOptions, type S3Options } from './options';
import * as operations from './operations';
import type { S3Layout, S3Session } from './session';
import { s3NameProblem } from './writing';

/** The user's token, `<access key id>:<secret access key>`; null for anything else. */
function accessKeyOf(token: string): AccessKey | null {
  const colon = token.indexOf(':');
  if (colon <= 0 || colon === token.length - 1) return null;
  return { accessKeyId: token.slice(0, colon), secretAccessKey: token.slice(colon + 1) };
}

/**
 * The origins the signature may go to: the endpoint's, and with virtual-hosted addressing the bucket's
 * host below it (`<bucket>.<endpoint host>`), where the SDK sends a bucket's requests.
 */
function signedOrigins(endpoint: string, bucket: string | undefined, pathStyle: boolean): string[] {
  if (pathStyle || bucket === undefined) return [];
  const url = new URL(endpoint);
  url.hostname = `${bucket}.${url.hostname}`;
  return [url.origin];
}

export const s3Connector: ConnectorDefinition<S3Options> = {
  name: 's3',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id'],
    abilities: ['write', 'folders', 'keywords', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    const endpoint = endpointOf(options);
    const pathStyle = options.path_style ?? false;
    const upstream = new Upstream(
      'S3',
      endpoint,
      context.upstream,
      signedOrigins(endpoint, options.bucket, pathStyle),
    );
    const layout: S3Layout = { bucket: options.bucket, prefix: keyPrefixOf(options) };
    const perPage = options.per_page ?? context.perPage;
    const region = options.region ?? DEFAULT_REGION;
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // a single-part upload's full-object SHA-256 and its ETag's MD5 (checksums.ts)
      hashAlgorithms: ['sha256', 'md5'],
      nameProblem: s3NameProblem,
      // the endpoint's root answers anyone (403 without a signature counts as an answer)
      probePath: '',
      /*
       * The token is an access key pair, and S3 has no "who am I": the check is the cheapest call the key
       * must be allowed anyway, one key of the bucket's listing (or the list of buckets). S3's refusals of
       * the key, and a key that may not list, are a 401 before any job. The user is named by the access key
       * id, which S3 does not treat as a secret (it is in every request's Authorization header).
       */
      async open(token) {
        const key = accessKeyOf(token);
        if (!key)
          throw new ConnectorError(401, 'Token is invalid: an S3 token is `<access key id>:<secret>`.');
        // the AWS SDK is loaded with the first session, not with every process that serves targets
        const { S3Api } = await import('./api');
        const api = new S3Api({ upstream, region, pathStyle }, key, upstream.name);
        const check: Promise<unknown> =
          layout.bucket === undefined ? api.buckets() : api.listLevel(layout.bucket, layout.prefix, 1);
        await forbiddenAsInvalidToken(check);
        return bindSession<S3Session>(key.accessKeyId, { api, layout, perPage }, operations);
      },
    });
  },
};
