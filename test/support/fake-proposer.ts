import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { verifyBagZip } from './jobs';

/** Where the real service serves its API, below its host. */
const API_PATH = '/environment-proposer/api/v1';
const DATA_TYPES = ['zip', 'tar', 'bagit+zip', 'bagit+tar'];

/** One proposal task of the fake, as the tests inspect it. */
export interface FakeProposalTask {
  id: string;
  dataUrl: string;
  dataType: string;
  state: 'running' | 'finished' | 'failed';
  /** what fetching data_url answered */
  fetched?: { status: number; contentType: string | null; bytes: number };
  /** the bag inside the fetched zip passed test/support/verify_bag.py */
  validBag?: boolean;
  /** why the task failed */
  failure?: string;
  /** the real proposer forgets a task once it has answered its result */
  handedOut: boolean;
}

export interface FakeProposer {
  /** the API's base URL, for EMULATION_API_URL */
  url: string;
  /** every task started, by id */
  tasks: Map<string, FakeProposalTask>;
  /** data_url of every submission, including refused ones */
  submittedDataUrls: string[];
  /** tasks started from now on wait, before fetching their data, until `resume` */
  pause(): void;
  resume(): void;
  /** answers submissions 503, as the real one does when it lacks resources */
  refuseSubmissions(refuse: boolean): void;
  close(): Promise<void>;
}

/**
 * A fake EaaSI environment proposer on 127.0.0.1, answering as its documented API does (see
 * apps/api/src/emulation/proposer-client.ts). A task fetches its data_url and checks that it got a valid
 * BagIt zip (with the independent Python verifier); it fails, as the real one would, when the fetch or the
 * check fails.
 */
export async function startFakeProposer(
  options: { trustedCertificate?: Buffer } = {},
): Promise<FakeProposer> {
  // a service behind TLS with a certificate of its own (test/browser) is fetched trusting that certificate
  const dispatcher = options.trustedCertificate
    ? new Agent({ connect: { ca: options.trustedCertificate } })
    : undefined;
  const tasks = new Map<string, FakeProposalTask>();
  const submittedDataUrls: string[] = [];
  let nextId = 1;
  let refusing = false;
  let gate: Promise<void> = Promise.resolve();
  let openGate = () => {};
  let base = '';

  const live = (id: string) => {
    const task = tasks.get(id);
    return task && !task.handedOut ? task : undefined;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: Error) => send(response, 500, { message: error.message }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const [, resource, id] = path.startsWith(`${API_PATH}/`) ? path.slice(API_PATH.length).split('/') : [];
    if (request.method === 'POST' && resource === 'proposals' && id === undefined) {
      return submit(await readJson(request), response);
    }
    if (request.method === 'GET' && resource === 'waitqueue' && id) {
      const task = live(id);
      if (!task) return send(response, 404, { message: `Passed ID is invalid: ${id}` });
      if (task.state === 'running') return send(response, 200, null, `${base}/waitqueue/${id}`);
      return send(response, 303, null, `${base}/proposals/${id}`);
    }
    if (request.method === 'GET' && resource === 'proposals' && id) {
      const task = live(id);
      if (!task || task.state === 'running') {
        return send(response, 404, { message: `Passed ID is invalid: ${id}` });
      }
      task.handedOut = true;
      if (task.state === 'failed') {
        return send(response, 500, {
          message: 'Server has encountered an internal error!',
          cause: `java.util.concurrent.ExecutionException: ${task.failure}`,
        });
      }
      return send(response, 200, proposalFor(task));
    }
    send(response, 404, { message: `No resource at ${request.method} ${path}` });
  }

  function submit(body: unknown, response: ServerResponse): void {
    const { data_url: dataUrl, data_type: dataType } = (body ?? {}) as Record<string, unknown>;
    if (typeof dataUrl === 'string') submittedDataUrls.push(dataUrl);
    if (refusing) {
      return send(response, 503, {
        message: 'Server temporarily lacks resources for request execution. Please try again later.',
      });
    }
    if (typeof dataUrl !== 'string' || typeof dataType !== 'string' || !DATA_TYPES.includes(dataType)) {
      return send(response, 400, {
        message: 'data_url and data_type (zip, tar, bagit+zip, bagit+tar) are required',
      });
    }
    const task: FakeProposalTask = {
      id: String(nextId++),
      dataUrl,
      dataType,
      state: 'running',
      handedOut: false,
    };
    tasks.set(task.id, task);
    send(
      response,
      202,
      { message: 'Proposal task was submitted.', id: task.id },
      `${base}/waitqueue/${task.id}`,
    );
    void gate.then(() => run(task));
  }

  async function run(task: FakeProposalTask): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'presqt-proposer-'));
    try {
      const fetched = await fetch(task.dataUrl, { dispatcher });
      const data = Buffer.from(await fetched.arrayBuffer());
      task.fetched = {
        status: fetched.status,
        contentType: fetched.headers.get('content-type'),
        bytes: data.length,
      };
      if (!fetched.ok) {
        throw new Error(`java.io.IOException: Server returned HTTP response code: ${fetched.status} for URL`);
      }
      const fileName = /filename="([^"]+)\.zip"/.exec(fetched.headers.get('content-disposition') ?? '')?.[1];
      if (!fileName) throw new Error('de.bwl.bwfla.common.exceptions.BWFLAException: no zip file name');
      const zip = join(dir, `${fileName}.zip`);
      writeFileSync(zip, data);
      try {
        verifyBagZip(zip, fileName);
        task.validBag = true;
      } catch (error) {
        task.validBag = false;
        const findings = ((error as { stdout?: string }).stdout ?? '').trim();
        throw new Error(`de.bwl.bwfla.common.exceptions.BWFLAException: Invalid BagIt archive! ${findings}`);
      }
      task.state = 'finished';
    } catch (error) {
      task.state = 'failed';
      task.failure = (error as Error).message;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  function proposalFor(task: FakeProposalTask) {
    return {
      image_url: `${new URL(base).origin}/blobstore/api/v1/blobs/imagebuilder-outputs/${randomUUID()}?access_token=default`,
      image_type: 'cdrom',
      environments: [`env-${task.id}-win98`],
      suggested: { [`env-${task.id}-win98`]: 'Windows 98 SE' },
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_PATH}`;
  let closed: Promise<void> | undefined;
  return {
    url: base,
    tasks,
    submittedDataUrls,
    pause() {
      gate = new Promise((resolve) => (openGate = resolve));
    },
    resume() {
      openGate();
    },
    refuseSubmissions(refuse) {
      refusing = refuse;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        // its kept-alive connections to the API would hold the test process open
      }).then(() => dispatcher?.close());
      return closed;
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown, location?: string): void {
  if (location) response.setHeader('Location', location);
  if (body === null) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
