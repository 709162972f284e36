import { Readable } from 'node:stream';
import type { AnswerKind, RequestBody, Upstream } from '../http';

/**
 * The AWS SDK's signed request as its request handler receives it (`@smithy/types` HttpRequest): the path
 * already escaped, the query not.
 */
interface SdkRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | (string | null)[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

interface SdkResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Readable;
}

/** The headers of a signed request that carry the secret's proof: they go only to origins trusted with them. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-amz-security-token']);

/** RFC 3986 escaping, as SigV4's canonical query string has it. */
function escape(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function queryString(query: SdkRequest['query']): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value])
      parts.push(item === null ? escape(key) : `${escape(key)}=${escape(item)}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** The SDK's body as the upstream client sends it: a buffer (or text, or a stream) as it is. */
function requestBody(body: unknown): RequestBody | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Readable) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error(`an S3 request body of an unexpected kind (${typeof body})`);
}

/**
 * A GetObject's answer is a file's bytes: held to a pace rather than a deadline, and resumed when cut. So is a
 * CompleteMultipartUpload's: S3 answers 200 at once and then sends white space while it assembles the
 * object, which may take minutes
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html).
 */
function answerKind(request: SdkRequest): AnswerKind {
  const query = request.query ?? {};
  const getObject = request.method === 'GET' && query['x-id'] === 'GetObject';
  const complete = request.method === 'POST' && 'uploadId' in query;
  return getObject || complete ? 'file' : 'answer';
}

/**
 * The AWS SDK's HTTP handler, sending its signed requests through the house's `Upstream`: the same
 * timeouts, deadlines, retries with backoff (429, 503 SlowDown, dropped connections; the SDK's own retries
 * are off), a cut GetObject body resumed with a Range request, metrics, and redirects followed by hand so
 * that the signature goes only to the configured endpoint, never to a host a redirect names. Bodies are the
 * SDK's buffers (a part, a small object), so a retried request is sent again whole.
 */
export class UpstreamRequestHandler {
  constructor(private readonly upstream: Upstream) {}

  async handle(request: SdkRequest): Promise<{ response: SdkResponse }> {
    const port = request.port ? `:${request.port}` : '';
    const url = `${request.protocol}//${request.hostname}${port}${request.path}${queryString(request.query)}`;
    const headers: Record<string, string> = {};
    const credentials: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase();
      // undici sets the Host of the origin, the one the SDK signed, and does not take `Expect: 100-continue`
      // (which the SDK asks for a body above 1 MiB); neither is signed
      if (lower === 'host' || lower === 'expect') continue;
      (CREDENTIAL_HEADERS.has(lower) ? credentials : headers)[lower] = value;
    }
    const body = requestBody(request.body);
    const response = await this.upstream.send(
      {
        method: request.method,
        url,
        headers,
        body: body === undefined ? undefined : () => body,
        // S3's writes name their object: sending one again stores the same bytes. Only a new multipart
        // upload (POST ?uploads) would make a second one.
        idempotent: !(request.method === 'POST' && request.query !== undefined && 'uploads' in request.query),
      },
      credentials,
      answerKind(request),
    );
    const answered: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) answered[name] = Array.isArray(value) ? value.join(', ') : value;
    return { response: { statusCode: response.status, headers: answered, body: response.body } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }
}
