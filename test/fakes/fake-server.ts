import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { closingAtOnce, type TestServer } from '../support/closing-server';

/**
 * The common part of the fake upstreams (GitHub, OSF, ...): an HTTP server on 127.0.0.1 with routes named by
 * their OpenAPI path templates, a record of every request and of every JSON answer (to check against the
 * upstream's published description), latency, and faults injected on demand. Each fake keeps its own state
 * and answers as the upstream's documentation says; this file knows nothing of any upstream.
 */

export interface FakeRequest {
  method: string;
  url: URL;
  /** path parameters by name, percent-decoded */
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** the raw request, to stream a large body */
  raw: IncomingMessage;
  body(): Promise<Buffer>;
  json<T = unknown>(): Promise<T>;
}

export interface RecordedRequest {
  method: string;
  /** path and query as received */
  url: string;
  headers: IncomingMessage['headers'];
}

export interface RecordedAnswer {
  method: string;
  /** the route's OpenAPI path template, e.g. `/repos/{owner}/{repo}` */
  template: string;
  status: number;
  body: unknown;
}

/** Something to go wrong with the next `times` requests that match (all requests when no match is given). */
export type Fault = {
  match?: { method?: string; path?: RegExp };
  times?: number;
} & (
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** the connection is dropped before any answer */
  | { kind: 'reset' }
  /** a body sent with `send` stops after `afterBytes` bytes and the connection is dropped */
  | { kind: 'cut'; afterBytes: number }
  /** a body sent with `send` pauses `delayMs` before each chunk */
  | { kind: 'slow'; delayMs: number }
);

export class FakeAnswer {
  constructor(
    private readonly res: ServerResponse,
    private readonly request: FakeRequest,
    private readonly template: string,
    private readonly fakeServer: FakeServer,
    /** aborted when the connection closes: the fake stops waiting for a client that went */
    private readonly closed: AbortSignal,
  ) {}

  /** A JSON answer, recorded for the OpenAPI check. */
  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.fakeServer.answers.push({ method: this.request.method, template: this.template, status, body });
    const text = JSON.stringify(body);
    this.res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    this.res.end(text);
  }

  /** An answer without a body. */
  empty(status: number, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { 'content-length': '0', ...headers });
    this.res.end();
  }

  /**
   * File bytes (a buffer, or a stream of `size` bytes), honouring a `Range: bytes=N-` request with 206 when
   * `ranges` is true, and the `cut` and `slow` faults.
   */
  async send(
    status: number,
    content: Buffer | { size: number; open(start: number): Readable },
    headers: Record<string, string> = {},
    ranges = false,
  ): Promise<void> {
    const size = Buffer.isBuffer(content) ? content.length : content.size;
    let start = 0;
    // `bytes=N-` or `bytes=N-M`; this fake serves from N to the end, which is what resuming asks for
    const range = ranges ? /^bytes=(\d+)-(\d*)$/.exec(String(this.request.headers.range ?? '')) : null;
    if (range && Number(range[1]) < size) {
      start = Number(range[1]);
      status = 206;
      headers = { ...headers, 'content-range': `bytes ${start}-${size - 1}/${size}` };
    }
    this.res.writeHead(status, {
      'content-type': 'application/octet-stream',
      'content-length': String(size - start),
      ...(ranges ? { 'accept-ranges': 'bytes' } : {}),
      ...headers,
    });
    const stream = Buffer.isBuffer(content) ? Readable.from([content.subarray(start)]) : content.open(start);
    const cut = this.fakeServer.takeFault(this.request, 'cut');
    const slow = this.fakeServer.takeFault(this.request, 'slow');
    let sent = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let offset = 0; offset < chunk.length; offset += 64 << 10) {
        const piece = chunk.subarray(offset, offset + (64 << 10));
        if (slow) await sleep(slow.delayMs, undefined, { signal: this.closed });
        if (cut && sent + piece.length > cut.afterBytes) {
          this.res.write(piece.subarray(0, Math.max(0, cut.afterBytes - sent)));
          // let the bytes leave before the connection drops
          await sleep(20, undefined, { signal: this.closed });
          this.res.socket?.destroy();
          stream.destroy();
          return;
        }
        sent += piece.length;
        if (!this.res.write(piece)) await once(this.res, 'drain', { signal: this.closed });
      }
    }
    this.res.end();
  }
}

type Handler = (request: FakeRequest, answer: FakeAnswer) => void | Promise<void>;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  readonly answers: RecordedAnswer[] = [];
  /** added before every answer, as a distant upstream would */
  latencyMs = 0;
  private readonly routes: Route[] = [];
  private readonly faults: Fault[] = [];
  private running: TestServer | null = null;
  private address = '';

  constructor(
    readonly name: string,
    /** the upstream's base path (`/v2` for OSF, `/api/v4` for GitLab), before every route's template */
    readonly prefix = '',
  ) {}

  /** The base URL with the prefix, e.g. `http://127.0.0.1:40123/v2` (no trailing slash). */
  get url(): string {
    return `${this.origin}${this.prefix}`;
  }

  /** e.g. `http://127.0.0.1:40123` */
  get origin(): string {
    if (!this.address) throw new Error(`the fake ${this.name} is not started`);
    return this.address;
  }

  /**
   * Adds a route by its OpenAPI path template (`/repos/{owner}/{repo}`), below the prefix. Parameters match one segment, except those named in `greedy`, which take the rest
   * of the path (GitHub's `{path}` of contents, OSF's file paths).
   */
  route(method: string, template: string, handler: Handler, greedy: readonly string[] = []): this {
    const names: string[] = [];
    const pattern = template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{(\w+)\}/g, (_match, name: string) => {
        names.push(name);
        return greedy.includes(name) ? '(.+)' : '([^/]+)';
      });
    const prefix = this.prefix.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    this.routes.push({ method, template, pattern: new RegExp(`^${prefix}${pattern}/?$`), names, handler });
    return this;
  }

  /** Makes the next matching requests fail as `fault` says. */
  inject(fault: Fault): void {
    this.faults.push({ times: 1, ...fault });
  }

  /** The fault of `kind` for this request, if one is waiting; it is used up. */
  takeFault<K extends Fault['kind']>(
    request: Pick<FakeRequest, 'method' | 'url'>,
    kind: K,
  ): Extract<Fault, { kind: K }> | undefined {
    const index = this.faults.findIndex(
      (fault) =>
        fault.kind === kind &&
        (!fault.match?.method || fault.match.method === request.method) &&
        (!fault.match?.path || fault.match.path.test(request.url.pathname)),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault as Extract<Fault, { kind: K }>;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    const running = closingAtOnce(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.running = running;
    this.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await this.running?.close();
    this.running = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    this.requests.push({ method, url: req.url ?? '/', headers: req.headers });
    // A wait (latency, a slow body) ends when the client gives up or stop() drops the connection: a timer
    // left running would keep the test process alive after the test ends. An answer sent whole has no wait
    // left to end (aborting would cost a DOMException a request).
    const closing = new AbortController();
    res.once('close', () => res.writableFinished || closing.abort());
    try {
      if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal: closing.signal });
      if (this.takeFault({ method, url }, 'reset')) {
        req.socket.destroy();
        return;
      }
      const failure = this.takeFault({ method, url }, 'status');
      if (failure) {
        req.resume();
        const text = JSON.stringify(failure.body ?? { message: `injected ${failure.status}` });
        res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
        res.end(text);
        return;
      }
      const found = this.match(method, url.pathname);
      if (!found) {
        req.resume();
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `the fake ${this.name} has no route ${method} ${url.pathname}` }));
        return;
      }
      const request = fakeRequest(req, method, url, found.params);
      const answer = new FakeAnswer(res, request, found.route.template, this, closing.signal);
      await found.route.handler(request, answer);
    } catch (error) {
      if (closing.signal.aborted) return; // nobody is left to answer
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `the fake ${this.name} failed: ${(error as Error).message}` }));
      } else res.destroy();
    }
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params = Object.fromEntries(
        route.names.map((name, index) => [name, decodeURIComponent(found[index + 1])]),
      );
      return { route, params };
    }
    return undefined;
  }
}

function fakeRequest(
  req: IncomingMessage,
  method: string,
  url: URL,
  params: Record<string, string>,
): FakeRequest {
  let read: Promise<Buffer> | undefined;
  const body = () =>
    (read ??= (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    })());
  return {
    method,
    url,
    params,
    headers: req.headers,
    raw: req,
    body,
    json: async <T>() => JSON.parse((await body()).toString('utf8') || 'null') as T,
  };
}
