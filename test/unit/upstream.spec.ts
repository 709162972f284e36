import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Upstream, decideRetry, rateLimitWait, type UpstreamClient } from '@app/connectors';
import { FakeServer } from '../fakes/fake-server';
import { TEST_UPSTREAM } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';

const TOKEN = { authorization: 'Bearer s3cret' };

describe('the shared upstream client', () => {
  let api: FakeServer;
  let storage: FakeServer;
  let client: UpstreamClient;
  const file = randomBytes(1 << 20);

  beforeAll(async () => {
    api = await new FakeServer('api', '/v1').start();
    storage = await new FakeServer('storage').start();
    let counter = 0;
    api
      .route('GET', '/things/{id}', (request, answer) => answer.json(200, { id: request.params.id }))
      .route('GET', '/file', (_request, answer) => answer.send(200, file, {}, true))
      .route('GET', '/file-no-ranges', (_request, answer) => answer.send(200, file))
      .route('GET', '/elsewhere', (_request, answer) =>
        answer.empty(302, { location: `${storage.origin}/blob` }),
      )
      .route('GET', '/nearby', (_request, answer) => answer.empty(302, { location: `${api.url}/things/7` }))
      .route('POST', '/counter', (_request, answer) => answer.json(201, { count: ++counter }))
      .route('POST', '/notes', async (request, answer) => answer.json(201, await request.json()))
      .route('PUT', '/upload', async (request, answer) => {
        const body = await request.body();
        answer.json(200, { md5: createHash('md5').update(body).digest('hex'), size: body.length });
      })
      .route('GET', '/status/{code}', (request, answer) =>
        answer.json(Number(request.params.code), { message: `said ${request.params.code}` }),
      )
      // an upstream that echoes the request's headers in its error, as some proxies and debug pages do
      .route('GET', '/echo-json', (request, answer) =>
        answer.json(400, { message: `Bad request. Headers: ${JSON.stringify(request.headers)}` }),
      )
      .route('GET', '/echo-text', (request, answer) =>
        answer.send(
          500,
          Buffer.from(`oops\r\nAuthorization: ${request.headers.authorization}\r\n${'x'.repeat(400)}`),
          {
            'content-type': 'text/plain',
          },
        ),
      )
      .route('GET', '/echo-other', (_request, answer) =>
        answer.json(400, {
          error: 'rejected: Authorization: Bearer ghp_someoneElsesToken123 and ?access_token=abc123456',
        }),
      );
    storage.route('GET', '/blob', (_request, answer) => answer.send(200, Buffer.from('stored bytes')));
  });

  beforeEach(() => {
    api.clearFaults();
    api.requests.length = 0;
    storage.requests.length = 0;
    client = new Upstream('Example', api.url, TEST_UPSTREAM).as(TOKEN);
  });

  afterAll(async () => {
    await api.stop();
    await storage.stop();
  });

  it('retries a GET through 503s and a dropped connection, then answers', async () => {
    api.inject({ kind: 'status', status: 503, times: 2, match: { path: /things/ } });
    api.inject({ kind: 'reset', match: { path: /things/ } });
    const { data } = await client.json<{ id: string }>({ url: 'things/42' });
    expect(data).toEqual({ id: '42' });
    expect(api.requests.filter((request) => request.url.includes('things'))).toHaveLength(4);
  });

  it('retries a HEAD through 500s and 503s, then answers', async () => {
    // an error status to a HEAD has no body, so it ends as it starts: the retry must not end it early
    api.inject({ kind: 'status', status: 500, times: 1, match: { path: /things/ } });
    api.inject({ kind: 'status', status: 503, times: 1, match: { path: /things/ } });
    const response = await client.request({ method: 'HEAD', url: 'things/42' });
    await response.body.dump();
    expect(response.status).toBe(200);
    expect(api.requests.filter((request) => request.method === 'HEAD')).toHaveLength(3);
  });

  it('gives up after the configured retries, naming the upstream and what it answered', async () => {
    api.inject({ kind: 'status', status: 502, times: 10, body: { message: 'bad gateway upstream' } });
    const failure = await failureOf(client.json({ url: 'things/1' }));
    expect(failure.status).toBe(502);
    expect(failure.message).toMatch(/^Example answered 502: bad gateway upstream/);
    expect(api.requests).toHaveLength(TEST_UPSTREAM.retries + 1);
  });

  it('waits as long as Retry-After and rate-limit reset headers ask', async () => {
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    let started = Date.now();
    await client.json({ url: 'things/1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    api.inject({
      kind: 'status',
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    });
    started = Date.now();
    await client.json({ url: 'things/1' });
    expect(Date.now()).toBeGreaterThanOrEqual(Number(reset) * 1000 - 50);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('fails at once, with 503, when a rate limit lasts longer than it may wait', async () => {
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const failure = await failureOf(client.json({ url: 'things/1' }));
    expect(failure).toEqual({
      status: 503,
      message: "Example's rate limit is used up for now; try again later.",
    });
    expect(api.requests).toHaveLength(1);
  });

  it('waits out a 403 whose message names a rate limit, longer each time, and hands other 403s on as they came', async () => {
    const rules = { message: /secondary rate limit/i, unadvisedWaitMs: 100 };
    const limited = new Upstream('Example', api.url, TEST_UPSTREAM, [], rules).as(TOKEN);
    const limit = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' };
    api.inject({ kind: 'status', status: 403, times: 2, body: limit, match: { path: /things/ } });
    let started = Date.now();
    expect((await limited.json<{ id: string }>({ url: 'things/3' })).data).toEqual({ id: '3' });
    // 100 ms, then 200 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(api.requests).toHaveLength(3);

    // a refused POST is sent again: the upstream did not carry it out
    api.inject({ kind: 'status', status: 403, body: limit, match: { method: 'POST' } });
    const note = await limited.json({ method: 'POST', url: 'notes', json: { text: 'kept' } });
    expect(note.data).toEqual({ text: 'kept' });

    api.inject({ kind: 'status', status: 403, times: 10, body: limit, match: { path: /things/ } });
    api.requests.length = 0;
    started = Date.now();
    expect(await failureOf(limited.json({ url: 'things/3' }))).toEqual({
      status: 503,
      message: "Example's rate limit is used up for now; try again later.",
    });
    // 100 + 200 + 400 ms over the three retries, then a fourth wait (800 ms) is beyond the retries
    expect(api.requests).toHaveLength(TEST_UPSTREAM.retries + 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);

    const other = await limited.request({ url: 'status/403' });
    expect(other.status).toBe(403);
    expect(JSON.parse((await readAll(other.body)).toString())).toEqual({ message: 'said 403' });
    expect((await failureOf(limited.json({ url: 'status/403' }))).status).toBe(403);
  });

  it('sends a POST again only when the upstream cannot have carried it out', async () => {
    api.inject({ kind: 'status', status: 500, match: { method: 'POST' } });
    expect((await failureOf(client.json({ method: 'POST', url: 'counter' }))).status).toBe(502);
    api.inject({ kind: 'status', status: 503, match: { method: 'POST' } });
    const { data } = await client.json<{ count: number }>({ method: 'POST', url: 'counter', json: {} });
    expect(data.count).toBe(1);
  });

  it('makes a streamed body anew for each attempt of a PUT', async () => {
    api.inject({ kind: 'status', status: 500, times: 2, match: { method: 'PUT' } });
    let opened = 0;
    const { data } = await client.json<{ md5: string; size: number }>({
      method: 'PUT',
      url: 'upload',
      headers: { 'content-length': String(file.length) },
      body: () => {
        opened++;
        return Readable.from([file.subarray(0, 1000), file.subarray(1000)]);
      },
    });
    expect(opened).toBe(3);
    expect(data).toEqual({ md5: createHash('md5').update(file).digest('hex'), size: file.length });
  });

  it('resumes a body cut off midway with a Range request, where the upstream takes ranges', async () => {
    api.inject({ kind: 'cut', afterBytes: 300_000, match: { path: /\/file$/ } });
    const response = await client.stream({ url: 'file' });
    expect((await readAll(response.body)).equals(file)).toBe(true);
    const ranges = api.requests.filter((request) => request.headers.range);
    expect(ranges.map((request) => request.headers.range)).toEqual([`bytes=300000-${file.length - 1}`]);

    api.inject({ kind: 'cut', afterBytes: 300_000, match: { path: /no-ranges/ } });
    const cut = await client.stream({ url: 'file-no-ranges' });
    await expect(readAll(cut.body)).rejects.toThrow();
  });

  it("counts an answer's chunks towards the collection of dead read buffers (countReadBuffer)", async () => {
    const collections: unknown[] = [];
    (globalThis as { gc?: unknown }).gc = (options: unknown) => collections.push(options);
    try {
      // 17 MiB: at least two collections of 8 MiB, whatever the count already stood at
      for (let i = 0; i < 17; i++) await readAll((await client.stream({ url: 'file' })).body);
    } finally {
      delete (globalThis as { gc?: unknown }).gc;
    }
    expect(collections.length).toBeGreaterThanOrEqual(2);
    expect(new Set(collections.map((options) => JSON.stringify(options)))).toEqual(
      new Set([JSON.stringify({ type: 'minor' })]),
    );
  });

  it('sends credentials to its own origin only, never to a host a redirect points to', async () => {
    const blob = await client.stream({ url: 'elsewhere' });
    expect((await readAll(blob.body)).toString()).toBe('stored bytes');
    expect(storage.requests[0].headers.authorization).toBeUndefined();

    const near = await client.json<{ id: string }>({ url: 'nearby' });
    expect(near.data.id).toBe('7');
    expect(api.requests.every((request) => request.headers.authorization === TOKEN.authorization)).toBe(true);

    const trusting = new Upstream('Example', api.url, TEST_UPSTREAM, [storage.origin]).as(TOKEN);
    await readAll((await trusting.stream({ url: 'elsewhere' })).body);
    expect(storage.requests[1].headers.authorization).toBe(TOKEN.authorization);
  });

  it("maps the upstream's refusals to the API's statuses", async () => {
    expect((await failureOf(client.json({ url: 'status/401' }))).status).toBe(401);
    expect((await failureOf(client.json({ url: 'status/403' }))).status).toBe(403);
    expect(await failureOf(client.json({ url: 'status/404' }, 'abc'))).toEqual({
      status: 404,
      message: "Resource with id 'abc' not found for this user.",
    });
    expect((await failureOf(client.json({ url: 'status/410' }))).status).toBe(410);
    expect((await failureOf(client.json({ url: 'status/422' }))).message).toBe(
      'Example answered 422: said 422 (/v1/status/422).',
    );
  });

  it("passes on the upstream's status and a cleaned message, never a credential it echoed", async () => {
    const json = await failureOf(client.json({ url: 'echo-json' }));
    expect(json.status).toBe(502);
    expect(json.message).toMatch(/^Example answered 400: Bad request\. Headers: /);
    const text = await failureOf(client.json({ url: 'echo-text' }));
    expect(text.message).toMatch(
      /^Example answered 500: oops Authorization: \[redacted\] x+… \(\/v1\/echo-text\)\.$/,
    );
    expect(text.message.length).toBeLessThan(260);
    const other = await failureOf(client.json({ url: 'echo-other' }));
    expect(other.message).toBe(
      'Example answered 400: rejected: Authorization: [redacted] and ?access_token=[redacted] (/v1/echo-other).',
    );
    for (const { message } of [json, text, other]) {
      expect(message).not.toContain('s3cret');
      expect(message).not.toMatch(/someoneElses|abc123456/);
    }
  });

  it('times out an upstream that stops sending, after its retries', async () => {
    // margins wide enough for a loaded machine: each request reaches the fake well within the timeout, and
    // the fake answers long after it
    const impatient = new Upstream('Example', api.url, { ...TEST_UPSTREAM, timeoutMs: 500, retries: 1 }).as(
      TOKEN,
    );
    api.inject({ kind: 'slow', delayMs: 5000, times: 2, match: { path: /no-ranges/ } });
    expect(await failureOf(impatient.stream({ url: 'file-no-ranges' }))).toEqual({
      status: 504,
      message: 'Example did not answer in time (GET /v1/file-no-ranges).',
    });
    expect(api.requests).toHaveLength(2);
  });

  it('probes without credentials and reports what failed', async () => {
    const upstream = new Upstream('Example', api.url, TEST_UPSTREAM);
    expect(await upstream.probe('things/1', 1000)).toEqual({
      ok: true,
      detail: 'Connected to server successfully',
    });
    expect(api.requests[0].headers.authorization).toBeUndefined();
    const down = await new Upstream('Down', 'http://127.0.0.1:9/', TEST_UPSTREAM).probe('x', 1000);
    expect(down).toEqual({ ok: false, detail: 'Could not connect to Down: ECONNREFUSED' });
  });

  describe('deadlines (an upstream that trickles)', () => {
    /** An upstream that answers at once and then sends its body a few bytes at a time, or drops it midway. */
    let trickling: Server;
    let origin: string;
    let rateLimited = 0;

    beforeAll(async () => {
      trickling = createServer((request, response) => {
        const path = request.url ?? '';
        if (path.startsWith('/rate-limited') && rateLimited++ === 0) {
          response.writeHead(429, { 'retry-after': '2', 'content-length': '0' }).end();
          return;
        }
        const fast = path.startsWith('/fast');
        const size = fast ? 4 << 20 : 100_000;
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
        if (fast) return void response.end(Buffer.alloc(size, 1));
        if (path.startsWith('/rate-limited')) return void response.end(Buffer.alloc(size, 1));
        let sent = 0;
        const timer = setInterval(() => {
          // `/drop`: the connection is dropped after 20 bytes, with no range support to resume from
          if (path.startsWith('/drop') && sent >= 20) return void response.socket?.destroy();
          response.write(Buffer.alloc(5, 1));
          if ((sent += 5) >= size) response.end();
        }, 100);
        response.once('close', () => clearInterval(timer));
      });
      await new Promise<void>((resolve) => trickling.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(trickling.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise((resolve) => trickling.close(resolve)));

    // the tests below run side by side (it.concurrent): each is mostly waiting, on connections of its own
    const clientWith = (settings: Partial<typeof TEST_UPSTREAM>) =>
      new Upstream('Trickle', origin, { ...TEST_UPSTREAM, ...settings }).as(TOKEN);

    it.concurrent(
      'gives a record or a page its whole deadline, not a timeout between chunks: 504 naming the upstream',
      async () => {
        const started = Date.now();
        expect(await failureOf(clientWith({ deadlineMs: 1500 }).json({ url: 'slow' }))).toEqual({
          status: 504,
          message: 'Trickle did not answer within 1.5 s (GET /slow).',
        });
        // the whole body, 5 bytes every 100 ms, would take 2,000 s
        expect(Date.now() - started).toBeLessThan(3000);
      },
    );

    it.concurrent('leaves the waits a rate limit asks for out of the deadline', async () => {
      const upstream = clientWith({ deadlineMs: 1500, maxWaitMs: 5000 });
      const started = Date.now();
      const response = await upstream.stream({ url: 'rate-limited' });
      expect((await readAll(response.body)).length).toBe(100_000);
      expect(rateLimited).toBe(2);
      // the call took longer than its deadline, all of it the wait the upstream asked for
      expect(Date.now() - started).toBeGreaterThan(1900);
    });

    it.concurrent(
      'answers 502 naming the upstream when a body breaks off and cannot be resumed',
      async () => {
        expect(await failureOf(readAll((await clientWith({}).stream({ url: 'drop' })).body))).toEqual({
          status: 502,
          message: expect.stringMatching(/^Trickle broke off its answer \(GET \/drop\): /),
        });
      },
    );

    it.concurrent(
      "holds a file's body to a minimum pace, and not a reader that is slow itself",
      async () => {
        // the two cases side by side, on connections of their own: each is 10 to 11 s of waiting
        const slowUpstream = async () => {
          // 50 bytes a second against a minimum of 1 KiB a second: cut after the first 10 s window
          const started = Date.now();
          const slow = await clientWith({ minBytesPerSecond: 1024 }).stream({ url: 'slow-file' });
          expect(await failureOf(readAll(slow.body))).toEqual({
            status: 504,
            message: expect.stringMatching(
              /^Trickle sent \d+ bytes in 10 s, slower than the 1024 bytes a second a file must come at \(GET \/slow-file\)\.$/,
            ),
          });
          expect(Date.now() - started).toBeLessThan(14_000);
        };
        const slowReader = async () => {
          // a fast upstream whose reader waits 11 s before reading 4 MiB: the upstream was not the slow one
          const fast = await clientWith({ minBytesPerSecond: 1024 }).stream({ url: 'fast-file' });
          await new Promise((resolve) => setTimeout(resolve, 11_000));
          expect((await readAll(fast.body)).length).toBe(4 << 20);
        };
        await Promise.all([slowUpstream(), slowReader()]);
      },
      40_000,
    );
  });

  describe('retry policy', () => {
    it('reads Retry-After as seconds or a date, and a spent limit by its reset time', () => {
      expect(rateLimitWait({ 'retry-after': '5' })).toBe(5000);
      expect(rateLimitWait({ 'retry-after': new Date(60_000).toUTCString() }, 0)).toBe(60_000);
      expect(rateLimitWait({ 'ratelimit-remaining': '0', 'ratelimit-reset': '100' }, 40_000)).toBe(60_000);
      expect(rateLimitWait({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '100' })).toBeUndefined();
    });

    it("waits for a rate limit that names no wait as the upstream's rules say, longer each time", () => {
      const settings = { ...TEST_UPSTREAM, maxWaitMs: 150_000 };
      const rules = { unadvisedWaitMs: 60_000 };
      expect(decideRetry({ status: 429 }, 1, 'GET', settings, { rules })).toEqual({
        retry: true,
        waitMs: 60_000,
      });
      expect(decideRetry({ status: 403, rateLimited: true }, 2, 'POST', settings, { rules })).toEqual({
        retry: true,
        waitMs: 120_000,
      });
      expect(decideRetry({ status: 403, rateLimited: true }, 3, 'GET', settings, { rules })).toEqual({
        retry: false,
        rateLimitedForMs: 240_000,
      });
      // the answer's own word wins
      const asked = { status: 429, headers: { 'retry-after': '2' } };
      expect(decideRetry(asked, 1, 'GET', settings, { rules })).toEqual({ retry: true, waitMs: 2000 });
      // without rules, the usual backoff
      const backoff = decideRetry({ status: 429 }, 1, 'GET', settings);
      expect(backoff.retry && backoff.waitMs).toBeLessThanOrEqual(TEST_UPSTREAM.retryBaseMs);
    });

    it('does not retry what another attempt cannot mend', () => {
      expect(decideRetry({ status: 404 }, 1, 'GET', TEST_UPSTREAM)).toEqual({ retry: false });
      expect(decideRetry({ status: 403 }, 1, 'GET', TEST_UPSTREAM)).toEqual({ retry: false });
      expect(decideRetry({ code: 'ECONNRESET' }, 1, 'POST', TEST_UPSTREAM)).toEqual({ retry: false });
      expect(decideRetry({ code: 'ECONNREFUSED' }, 1, 'POST', TEST_UPSTREAM).retry).toBe(true);
      expect(decideRetry({ status: 500 }, TEST_UPSTREAM.retries + 1, 'GET', TEST_UPSTREAM).retry).toBe(false);
    });
  });
});
