import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeFairshake {
  url: string;
  /** every request received, in order */
  requests: RecordedRequest[];
  /** the token it accepts; change it to make the API's configured token wrong */
  token: string;
  /** while true, requests are received and recorded but never answered (to test timeouts) */
  stall: boolean;
  close(): Promise<void>;
}

/** FAIRshake numbers its objects from wherever its database is; far from our own sequence's 1, 2, 3. */
const FIRST_DIGITAL_OBJECT_ID = 5001;
const FIRST_ASSESSMENT_ID = 9001;

/**
 * A FAIRshake on 127.0.0.1, answering as its Django REST Framework API does: `POST /digital_object/` and
 * `POST /assessment/` (trailing slash required) with `Authorization: Token <key>`, 401 `{"detail": ...}` for a
 * missing or wrong token, 400 with per-field lists for a bad body, 201 with the created object.
 */
export async function startFakeFairshake(token: string): Promise<FakeFairshake> {
  const digitalObjects = new Map<number, Record<string, unknown>>();
  let nextDigitalObjectId = FIRST_DIGITAL_OBJECT_ID;
  let nextAssessmentId = FIRST_ASSESSMENT_ID;
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();

  const fake: FakeFairshake = {
    url: '',
    requests,
    token,
    stall: false,
    close: () =>
      new Promise((resolve) => {
        for (const response of open) response.destroy();
        // resolves also when already closed
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((request, response) => {
    void readJson(request).then((body) => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        authorization: request.headers.authorization,
        body,
      });
      if (fake.stall) {
        open.add(response);
        return;
      }
      const send = (status: number, data: unknown) =>
        response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(data));

      const authorization = request.headers.authorization;
      if (!authorization) return send(401, { detail: 'Authentication credentials were not provided.' });
      if (authorization !== `Token ${fake.token}`) return send(401, { detail: 'Invalid token.' });
      if (request.method !== 'POST') return send(405, { detail: `Method "${request.method}" not allowed.` });
      if (!request.headers['content-type']?.startsWith('application/json')) {
        return send(415, {
          detail: `Unsupported media type "${request.headers['content-type']}" in request.`,
        });
      }
      if (typeof body !== 'object' || body === null) return send(400, { detail: 'JSON parse error' });
      const fields = body as Record<string, unknown>;

      if (request.url === '/digital_object/') {
        if (typeof fields.url !== 'string' || fields.url === '') {
          return send(400, { url: ['This field is required.'] });
        }
        const created = {
          id: nextDigitalObjectId++,
          title: '',
          description: '',
          image: '',
          tags: '',
          type: '',
          authors: [1],
          projects: [],
          rubrics: [],
          ...fields,
        };
        digitalObjects.set(created.id, created);
        return send(201, created);
      }
      if (request.url === '/assessment/') {
        if (!digitalObjects.has(fields.target as number)) {
          return send(400, { target: [`Invalid pk "${String(fields.target)}" - object does not exist.`] });
        }
        if (!Array.isArray(fields.answers)) return send(400, { answers: ['This field is required.'] });
        return send(201, {
          id: nextAssessmentId++,
          assessor: 1,
          timestamp: new Date().toISOString(),
          ...fields,
        });
      }
      return send(404, { detail: 'Not found.' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
