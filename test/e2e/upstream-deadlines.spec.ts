import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ALL_ACTIONS, writeTargetsFile } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

const DEADLINE_MS = 1500;

/**
 * A repository that answers every call at once and then sends its JSON body five bytes every 100 ms: the kind of
 * upstream (overloaded, or behind a broken proxy) that a timeout between chunks never cuts off.
 */
function startTricklingUpstream(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    const body = Buffer.from(JSON.stringify({ login: 'alice', padding: 'x'.repeat(10_000) }));
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    let sent = 0;
    const timer = setInterval(() => {
      response.write(body.subarray(sent, sent + 5));
      if ((sent += 5) >= body.length) response.end();
    }, 100);
    response.once('close', () => clearInterval(timer));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** A user's read against a trickling repository ends at the upstream deadline with a 504 naming it. */
describe('upstream deadlines (real API and Redis)', () => {
  let stack: Stack;
  let upstream: { server: Server; url: string };

  beforeAll(async () => {
    upstream = await startTricklingUpstream();
    const targetsFile = writeTargetsFile([
      {
        name: 'github',
        readable_name: 'GitHub',
        status_url: `${upstream.url}/rate_limit`,
        token_url: 'https://github.com/settings/tokens',
        supported_actions: ALL_ACTIONS,
        supported_transfer_partners: { transfer_in: [], transfer_out: [] },
        supported_hash_algorithms: [],
        infinite_depth: true,
        search_parameters: ['title'],
        connector: 'github',
        options: { api_url: upstream.url },
      },
    ]);
    stack = await startStack({
      worker: false,
      env: { TARGETS_FILE: targetsFile, UPSTREAM_DEADLINE_MS: String(DEADLINE_MS) },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  const timedGet = async (path: string) => {
    const started = Date.now();
    const answer = await request(stack.baseUrl).get(path).set('presqt-source-token', 'alice-token');
    return { answer, tookMs: Date.now() - started };
  };
  const DEADLINE_ERROR = /^GitHub did not answer within 1\.5 s \(GET \/[^)]*\)\.$/;

  /** The whole body would take 20 s at this pace: the deadline, not the body's end, closed the answer. */
  const expectEndedByDeadline = (tookMs: number) => {
    expect(tookMs).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    expect(tookMs).toBeLessThan(DEADLINE_MS + 3000);
  };

  it('answers a listing with 504 naming GitHub and the call, at the deadline', async () => {
    const { answer, tookMs } = await timedGet('/api_v1/targets/github/resources/');

    expect(answer.status).toBe(504);
    expect(answer.body.error).toMatch(DEADLINE_ERROR);
    expectEndedByDeadline(tookMs);
  });

  it("answers a detail with the web client's placeholder carrying the same error, at the deadline", async () => {
    const { answer, tookMs } = await timedGet('/api_v1/targets/github/resources/12345/');

    // docs/behaviour.md, "Resource detail when the target fails": a 504 becomes a 200 placeholder
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ kind: 'item', kind_name: 'unavailable', id: '12345', actions: [] });
    expect(answer.body.error).toMatch(DEADLINE_ERROR);
    expectEndedByDeadline(tookMs);
  });
});
