import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Agent, RetryAgent, type Dispatcher } from 'undici';
import type { TargetStatus } from '../connector';
import { ConnectorError } from '../connector-error';
import type { UpstreamSettings } from './upstream.settings';
// the definitions alone: the rest of observability depends on the connectors
import { upstreamRequests, upstreamRetries } from './upstream-metrics';
import { CallWatch, type WatchedOptions } from './call-watch';
import { decideRetry, type AttemptFailure, type RateLimitRules } from './retry-policy';
import { cleanUpstreamText, secretsOf } from './upstream-text';

export type RequestBody = string | Buffer | Readable;

export interface UpstreamRequest {
  /** GET unless given */
  method?: string;
  /** absolute, or relative to the upstream's base URL */
  url: string | URL;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** a body sent as JSON */
  json?: unknown;
  /** makes the body, anew for each attempt (a stream cannot be sent twice) */
  body?: () => RequestBody | Promise<RequestBody>;
  /** may be sent again even after the upstream may have received it (POST and PATCH are not, by default) */
  idempotent?: boolean;
}

/** An answer's body: a stream, and `dump` to discard what is left of it. */
export type ResponseBody = Readable & { dump(): Promise<void> };

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** where the answer came from, after redirects */
  url: URL;
  body: ResponseBody;
}

const MAX_REDIRECTS = 5;
/** JSON answers are pages and single records; anything larger is refused rather than held in memory. */
const MAX_JSON_BYTES = 64 << 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A 403 body read to see whether its message names a rate limit: an error message is far shorter. */
const MESSAGE_BYTES = 64 << 10;

/** What a call's answer is: a record or a page, held to a deadline; or a file's bytes, held to a pace. */
export type AnswerKind = 'answer' | 'file';

/**
 * One upstream repository API (GitHub, OSF, ...) as the connectors reach it: a keep-alive connection pool
 * with timeouts, retries with backoff on 429, 5xx and connection errors that honour `Retry-After` and
 * rate-limit reset headers, and redirects followed by hand so that credentials go only to the origins
 * trusted with them (the API's own, and those the connector names, such as OSF's file service), never to a
 * storage host a download redirects to. Every call has a deadline, and a file's body a minimum pace
 * (CallWatch, docs/limits.md#upstream-deadlines).
 *
 * GET goes through undici's RetryAgent, which also resumes a body cut off midway with a Range request.
 * Requests with a body are retried here instead, because the RetryAgent cannot send a stream twice: each
 * attempt makes its body anew. So is HEAD, which the RetryAgent cannot retry after an error status (see
 * attempt). A rate limit that only an answer's message tells (`RateLimitRules`) is
 * waited out here too, for every method: the upstream refused the request, so sending it again is safe.
 */
export class Upstream {
  readonly baseUrl: URL;
  private readonly trusted: Set<string>;
  private readonly agent: Agent;
  /** GET: retried by undici, watched by the call's CallWatch */
  private readonly retrying: Dispatcher;
  /** HEAD and requests with a body, retried here, watched likewise */
  private readonly sending: Dispatcher;
  private readonly logger: Logger;

  constructor(
    /** the upstream's name in messages, e.g. `GitHub` */
    readonly name: string,
    baseUrl: string,
    readonly settings: UpstreamSettings,
    /** origins besides the base URL's that may receive the credentials */
    trustedOrigins: readonly string[] = [],
    private readonly rules: RateLimitRules = {},
  ) {
    this.baseUrl = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.trusted = new Set([this.baseUrl.origin, ...trustedOrigins.map((origin) => new URL(origin).origin)]);
    this.agent = new Agent({
      connectTimeout: settings.timeoutMs,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      keepAliveTimeout: 10_000,
      connections: 32,
    });
    this.logger = new Logger(`Upstream ${name}`);
    this.retrying = new RetryAgent(this.agent, {
      throwOnError: false,
      retry: (error, { state, opts }, callback) => {
        const failure = error as Error & AttemptFailure & { statusCode?: number };
        const decision = decideRetry(
          { status: failure.statusCode, headers: failure.headers, code: failure.code },
          state.counter,
          opts.method,
          settings,
          { rules },
        );
        if (!decision.retry) return callback(error);
        this.noteRetry(opts.method, String(opts.path).split('?')[0], failure.statusCode ?? failure.code);
        const watch = (opts as WatchedOptions).watch;
        watch?.hold();
        setTimeout(() => {
          watch?.run();
          callback(null);
        }, decision.waitMs).unref();
      },
    }).compose(CallWatch.interceptor());
    this.sending = this.agent.compose(CallWatch.interceptor());
  }

  /** A view of the upstream that sends `credentials` (headers) to the trusted origins only. */
  as(credentials: Record<string, string>): UpstreamClient {
    return new UpstreamClient(this, credentials);
  }

  /** An absolute URL: `url` as given when absolute, else below the base URL. */
  resolve(url: string | URL, query?: UpstreamRequest['query']): URL {
    const resolved = new URL(typeof url === 'string' ? url.replace(/^\//, '') : url, this.baseUrl);
    for (const [key, value] of Object.entries(query ?? {}))
      if (value !== undefined) resolved.searchParams.set(key, String(value));
    return resolved;
  }

  isTrusted(url: URL): boolean {
    return this.trusted.has(url.origin);
  }

  /** Whether the upstream answers at all (any status below 500 counts), without credentials or retries. */
  async probe(path: string, timeoutMs: number): Promise<TargetStatus> {
    try {
      const response = await this.agent.request({
        method: 'GET',
        origin: this.resolve(path).origin,
        path: pathOf(this.resolve(path)),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body.dump();
      return response.statusCode < 500
        ? { ok: true, detail: 'Connected to server successfully' }
        : { ok: false, detail: `${this.name} answered HTTP ${response.statusCode}` };
    } catch (error) {
      const reason = error as Error & { code?: string };
      const timedOut = reason.name === 'TimeoutError' || reason.name === 'AbortError';
      return {
        ok: false,
        detail: timedOut
          ? `${this.name} did not answer within ${timeoutMs} ms`
          : `Could not connect to ${this.name}: ${reason.code ?? reason.message}`,
      };
    }
  }

  /**
   * One request, retried and redirected; an answer of any status is returned (see UpstreamClient). Its
   * deadline runs until the answer's last byte; for a `file`, until the headers of a successful answer, and
   * then its body is held to a minimum pace.
   */
  async send(
    request: UpstreamRequest,
    credentials: Record<string, string>,
    kind: AnswerKind = 'answer',
  ): Promise<UpstreamResponse> {
    let method = (request.method ?? 'GET').toUpperCase();
    let url = this.resolve(request.url, request.query);
    let body = request.body;
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (request.json !== undefined) {
      const text = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
      body = () => text;
    }
    const limits = {
      deadlineMs: this.settings.deadlineMs,
      minBytesPerSecond: kind === 'file' ? this.settings.minBytesPerSecond : undefined,
    };
    const watch = new CallWatch(limits, this.name, () => `${method} ${url.pathname}`);
    let redirects = 0;
    let limited = 0;
    for (;;) {
      watch.run();
      const response = await this.counted(method, () =>
        this.attempt(method, url, headers, credentials, body, request.idempotent, watch),
      ).catch((error: unknown) => {
        watch.stop();
        throw error;
      });
      const answer = await this.unlessRateLimited(response);
      if (answer === 'rate limited') {
        const decision = decideRetry(
          { status: response.statusCode, headers: response.headers, rateLimited: true },
          ++limited,
          method,
          this.settings,
          { rules: this.rules },
        );
        if (!decision.retry) throw rateLimitUsedUp(this.name);
        this.noteRetry(method, url.pathname, `${response.statusCode} (a rate limit)`);
        await waitBetween(watch, decision.waitMs);
        continue;
      }
      const location = response.headers.location;
      if (!REDIRECTS.has(response.statusCode) || typeof location !== 'string') {
        return { status: response.statusCode, headers: response.headers, url, body: answer };
      }
      await answer.dump();
      if (redirects++ >= MAX_REDIRECTS)
        throw new ConnectorError(502, `${this.name} redirected more than ${MAX_REDIRECTS} times.`);
      url = new URL(location, url);
      if (response.statusCode === 303 || (response.statusCode !== 307 && response.statusCode !== 308)) {
        // as browsers do: only 307 and 308 repeat the method and body
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
      }
    }
  }

  /**
   * The answer's body, or `rate limited` for a 403 whose message says so (RateLimitRules.message). Such a
   * 403's body is read to find out, and handed on as read when it says anything else.
   */
  private async unlessRateLimited(response: Dispatcher.ResponseData): Promise<ResponseBody | 'rate limited'> {
    if (!this.rules.message || response.statusCode !== 403) return response.body;
    const { read, body } = await peek(response.body, MESSAGE_BYTES);
    if (read.length <= MESSAGE_BYTES && this.rules.message.test(saidIn(read.toString('utf8')))) {
      await body.dump();
      return 'rate limited';
    }
    return body;
  }

  /** One request with its own retries: the RetryAgent's for a GET, this loop's for a HEAD or a body. */
  private async attempt(
    method: string,
    url: URL,
    headers: Record<string, string>,
    credentials: Record<string, string>,
    body: UpstreamRequest['body'],
    idempotent: boolean | undefined,
    watch: CallWatch,
  ): Promise<Dispatcher.ResponseData> {
    // credentials only for the origins trusted with them: never for a host a redirect points to
    const sent = this.isTrusted(url) ? { ...headers, ...credentials } : headers;
    const options = { method: method, origin: url.origin, path: pathOf(url), headers: sent, watch };
    // A HEAD is retried here too: undici's RetryAgent (7.x), handed an error status to a HEAD, sees the answer
    // end (it has no body) while it waits on our retry decision, and ends the request before it ever started
    // it ("Cannot read properties of null (reading 'push')", or a call that never settles)
    if (!body && method !== 'HEAD') {
      try {
        return await this.retrying.request(options);
      } catch (error) {
        // the call's own deadline, already worded
        if (error instanceof ConnectorError) throw error;
        throw this.unreachable(error, method, url);
      }
    }
    for (let attempt = 1; ; attempt++) {
      let failure: AttemptFailure;
      try {
        const sentBody = body && watchedBody(await body(), watch);
        const response = await this.sending.request({ ...options, body: sentBody });
        failure = { status: response.statusCode, headers: response.headers };
        const decision = decideRetry(failure, attempt, method, this.settings, {
          idempotent,
          rules: this.rules,
        });
        if (response.statusCode < 400 || !decision.retry) return response;
        await response.body.dump();
        this.noteRetry(method, url.pathname, response.statusCode);
        await waitBetween(watch, decision.waitMs);
      } catch (error) {
        failure = { code: (error as { code?: string }).code };
        // a failure of the body itself (a source that broke off) is not the upstream's, and the deadline is
        // already worded: they go as they came
        if (failure.code === undefined) throw error;
        const decision = decideRetry(failure, attempt, method, this.settings, {
          idempotent,
          rules: this.rules,
        });
        if (!decision.retry) throw this.unreachable(error, method, url);
        this.noteRetry(method, url.pathname, failure.code);
        await waitBetween(watch, decision.waitMs);
      }
    }
  }

  /** Counts a request by its final status after retries, or as `error` when nothing answered. */
  private async counted(
    method: string,
    attempt: () => Promise<Dispatcher.ResponseData>,
  ): Promise<Dispatcher.ResponseData> {
    const labels = { upstream: this.name, method };
    try {
      const response = await attempt();
      upstreamRequests.inc({ ...labels, status: String(response.statusCode) });
      return response;
    } catch (error) {
      upstreamRequests.inc({ ...labels, status: 'error' });
      throw error;
    }
  }

  private noteRetry(method: string, path: string, cause: unknown): void {
    upstreamRetries.inc({ upstream: this.name });
    // the path only: a query may hold a token (Zenodo's access_token)
    this.logger.warn(`Retrying ${method} ${path} after ${String(cause)}`);
  }

  private unreachable(error: unknown, method: string, url: URL): ConnectorError {
    const reason = error as Error & { code?: string };
    const timedOut = /TIMEOUT/.test(reason.code ?? '');
    return new ConnectorError(
      timedOut ? 504 : 502,
      timedOut
        ? `${this.name} did not answer in time (${method} ${url.pathname}).`
        : `${this.name} could not be reached (${method} ${url.pathname}): ${reason.code ?? reason.message}.`,
    );
  }
}

/** The upstream as one user reaches it: every request carries that user's credentials. */
export class UpstreamClient {
  constructor(
    readonly upstream: Upstream,
    private readonly credentials: Record<string, string>,
  ) {}

  /** Any answer, redirects followed; the caller reads or dumps its body. */
  request(request: UpstreamRequest): Promise<UpstreamResponse> {
    return this.upstream.send(request, this.credentials);
  }

  /** A successful answer's JSON; an unsuccessful one throws what `failure` makes of it. */
  async json<T>(
    request: UpstreamRequest,
    resourceId?: string,
  ): Promise<{ data: T; response: UpstreamResponse }> {
    const response = await this.request(request);
    if (response.status >= 300) throw await this.failure(response, resourceId);
    return { data: await readJson<T>(response, this.upstream.name), response };
  }

  /** Deletes what `request` names; what is gone already (404, 410) counts as deleted. */
  async remove(request: UpstreamRequest, resourceId?: string): Promise<void> {
    const response = await this.request({ ...request, method: 'DELETE' });
    if (response.status >= 300 && response.status !== 404 && response.status !== 410)
      throw await this.failure(response, resourceId);
    await response.body.dump();
  }

  /** A successful answer's body as a stream, for file contents: held to a minimum pace, not a deadline. */
  async stream(request: UpstreamRequest, resourceId?: string): Promise<UpstreamResponse> {
    const response = await this.upstream.send(request, this.credentials, 'file');
    if (response.status >= 300) throw await this.failure(response, resourceId);
    return response;
  }

  /**
   * The ConnectorError an unsuccessful answer stands for (docs/behaviour.md#checks-before-the-202): 401 a token the upstream refuses, 403 no
   * access, 404 an unknown resource, 410 gone; a rate limit that lasts, and anything else, name the upstream,
   * its status and what it said, cleaned of anything like a credential (docs/limits.md#upstream-errors). The
   * body is read (a little of it) and released.
   */
  async failure(response: UpstreamResponse, resourceId?: string): Promise<ConnectorError> {
    const said = cleanUpstreamText(await upstreamMessage(response), secretsOf(this.credentials));
    switch (response.status) {
      case 401:
        return ConnectorError.invalidToken(401);
      case 403:
        if (!isRateLimitAnswer(response)) return ConnectorError.forbidden();
        break;
      case 404:
        if (resourceId !== undefined) return ConnectorError.unknownResource(resourceId);
        break;
      case 410:
        return ConnectorError.gone();
    }
    if (isRateLimitAnswer(response)) return rateLimitUsedUp(this.upstream.name);
    return new ConnectorError(
      502,
      `${this.upstream.name} answered ${response.status}${said ? `: ${said}` : ''} (${response.url.pathname}).`,
    );
  }
}

function rateLimitUsedUp(upstreamName: string): ConnectorError {
  return new ConnectorError(503, `${upstreamName}'s rate limit is used up for now; try again later.`);
}

function isRateLimitAnswer(response: UpstreamResponse): boolean {
  return (
    response.status === 429 ||
    (response.status === 403 &&
      (response.headers['x-ratelimit-remaining'] === '0' || response.headers['retry-after'] !== undefined))
  );
}

/** What the upstream said in an error body (its `message` or `error`, or its text), uncleaned. */
async function upstreamMessage(response: UpstreamResponse): Promise<string> {
  let text = '';
  try {
    for await (const chunk of response.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > 4096) break;
    }
  } catch {
    return '';
  } finally {
    response.body.destroy();
  }
  return saidIn(text);
}

/** What an error body says: its JSON's `message`, `error` or `errors`, else its text, shortened. */
function saidIn(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown; errors?: unknown };
    const said = parsed.message ?? parsed.error ?? parsed.errors;
    return typeof said === 'string' ? said : JSON.stringify(said ?? '');
  } catch {
    return text;
  }
}

/**
 * The first bytes of a body, up to just past `limit`, and the body again as it was: those bytes, then the
 * rest unread.
 */
async function peek(source: ResponseBody, limit: number): Promise<{ read: Buffer; body: ResponseBody }> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size <= limit) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* head;
    if (ended) return;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const body = Readable.from(replay(), { objectMode: false });
  const dump = async () => {
    body.destroy();
    source.destroy();
  };
  return { read: Buffer.concat(head), body: Object.assign(body, { dump }) };
}

/** The JSON of an answer's body, refusing one too large to hold (a page or a record never is). */
export async function readJson<T>(response: UpstreamResponse, upstreamName: string): Promise<T> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BYTES) {
      response.body.destroy();
      throw new ConnectorError(
        502,
        `${upstreamName} answered with more than ${MAX_JSON_BYTES} bytes of JSON.`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return (text === '' ? null : JSON.parse(text)) as T;
  } catch {
    throw new ConnectorError(502, `${upstreamName} answered with something that is not JSON.`);
  }
}

/** A wait between attempts, which the call's deadline leaves out. */
async function waitBetween(watch: CallWatch, waitMs: number): Promise<void> {
  watch.hold();
  await sleep(waitMs);
  watch.run();
}

/**
 * A request body as sent: a stream (a file going up) stops the deadline until it has been read whole, as its
 * time is the size of the file's; the answer to it is then held to the deadline.
 */
function watchedBody(body: RequestBody, watch: CallWatch): RequestBody {
  if (body instanceof Readable) {
    watch.hold();
    body.once('end', () => watch.run());
  }
  return body;
}

function pathOf(url: URL): string {
  return `${url.pathname}${url.search}`;
}
