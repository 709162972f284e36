import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A concept as SciGraph's `/vocabulary/term/{term}` answers it (its ConceptDTO). */
export interface FakeConcept {
  iri: string;
  curie: string;
  labels: string[];
  synonyms: string[];
  deprecated?: boolean;
}

/** How the fake answers: as SciGraph does, with HTTP 500, with a 200 that is not JSON, or never. */
export type FakeSciGraphMode = 'normal' | 'error' | 'garbage' | 'hang';

export interface FakeSciGraph {
  /** base URL, as SCIGRAPH_URL would be set (SciGraph is usually served under /scigraph) */
  url: string;
  mode: FakeSciGraphMode;
  /** each request received, in arrival order: the decoded term, the query and the Authorization header */
  requests: { term: string; query: URLSearchParams; authorization?: string }[];
  /** the most requests open at the same time */
  peakConcurrency: number;
  close(): Promise<void>;
}

const NOT_FOUND = { code: 404, message: 'HTTP 404 Not Found' };

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/**
 * A node:http stand-in for a SciGraph service. `GET /scigraph/vocabulary/term/{term}?limit=n` answers, as
 * SciGraph does, the JSON array of (at most n, default 20) concepts having `term` as a label or synonym
 * (ignoring case), and 404 when there is none. Answers wait `delayMs`, so that concurrency can be observed.
 */
export async function startFakeSciGraph(
  concepts: FakeConcept[],
  options: { delayMs?: number } = {},
): Promise<FakeSciGraph> {
  let open = 0;
  const answer = (response: ServerResponse, term: string, limit: number): void => {
    if (fake.mode === 'error') {
      return send(response, 500, { code: 500, message: 'There was an error processing your request.' });
    }
    if (fake.mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Down for maintenance</body></html>');
      return;
    }
    const hits = concepts.filter((concept) =>
      [...concept.labels, ...concept.synonyms].some((label) => label.toLowerCase() === term.toLowerCase()),
    );
    if (hits.length === 0) return send(response, 404, NOT_FOUND);
    send(
      response,
      200,
      hits.slice(0, limit).map((concept) => ({
        categories: [],
        acronyms: [],
        abbreviations: [],
        deprecated: false,
        definitions: [],
        ...concept,
      })),
    );
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const match = /^\/scigraph\/vocabulary\/term\/([^/]+)$/.exec(url.pathname);
    if (request.method !== 'GET' || !match) return send(response, 404, NOT_FOUND);
    const term = decodeURIComponent(match[1]);
    fake.requests.push({ term, query: url.searchParams, authorization: request.headers.authorization });
    fake.peakConcurrency = Math.max(fake.peakConcurrency, ++open);
    response.once('close', () => open--);
    if (fake.mode === 'hang') return; // never answers; close() drops the connection
    setTimeout(
      () => answer(response, term, Number(url.searchParams.get('limit') ?? 20)),
      options.delayMs ?? 0,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeSciGraph = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/scigraph`,
    mode: 'normal',
    requests: [],
    peakConcurrency: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fake;
}
