import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeBagZip } from '../support/bags';
import { filesystemEntry, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

const HEADERS = {
  'presqt-destination-token': 'alice-token',
  'presqt-file-duplicate-action': 'ignore',
  'presqt-email-opt-in': '',
};
const BOUNDARY = 'slow-client-boundary';

/**
 * An upload whose body comes `bytesPerTick` every 100 ms after its first part's headers, as a slow or hostile
 * client sends it; resolves with what the server answered (before it closed the connection) and when.
 */
function slowUpload(baseUrl: string, bytesPerTick: number, giveUpMs: number) {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  const head =
    [
      'POST /api_v1/targets/fs/resources/ HTTP/1.1',
      `Host: ${hostname}:${port}`,
      ...Object.entries(HEADERS).map(([name, value]) => `${name}: ${value}`),
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length: 10000000',
      '',
      '',
    ].join('\r\n') +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="presqt-file"; filename="package.zip"\r\n` +
    'Content-Type: application/zip\r\n\r\nPK';
  socket.write(head);
  const trickle = setInterval(() => socket.write(Buffer.alloc(bytesPerTick, 0x41)), 100);
  return new Promise<{ answer: string; afterMs: number }>((resolve) => {
    let answer = '';
    const done = () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ answer, afterMs: Date.now() - started });
    };
    const giveUp = setTimeout(done, giveUpMs);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    // the server closes the connection after its answer; a reset may follow the bytes still sent
    socket.once('close', done);
    socket.once('error', done);
  });
}

/** Request bodies that come too slowly, or for too long, are cut off and free the user's upload slot. */
describe('slow request bodies (real API and Redis)', () => {
  const stacks: Stack[] = [];
  let targetsFile: string;

  beforeAll(() => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-slow-clients-'));
    writeTree(root, { 'alice/Existing/old.txt': 'old' });
    targetsFile = writeTargetsFile([filesystemEntry('fs', root)]);
  });

  afterAll(() => Promise.all(stacks.map((stack) => stack.stop())));

  const start = async (env: Record<string, string>) => {
    const stack = await startStack({ worker: false, env: { TARGETS_FILE: targetsFile, ...env } });
    stacks.push(stack);
    return stack;
  };

  /** The user can upload again: the cut-off upload let go of the slot (at once, or within a second or two). */
  const uploadsAgain = async (stack: Stack) => {
    const zip = await makeBagZip({ root: 'bag', files: { 'Fresh Project/a.txt': 'a' } });
    const deadline = Date.now() + 5000;
    for (;;) {
      const answer = await request(stack.baseUrl)
        .post('/api_v1/targets/fs/resources/')
        .set(HEADERS)
        .attach('presqt-file', zip, 'package.zip');
      const inProgress = answer.status === 400 && /in progress/.test(answer.text);
      if (!inProgress || Date.now() > deadline)
        return expect([answer.status, answer.text]).toEqual([202, expect.any(String)]);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  // the two run side by side, each on a stack of its own: each is mostly waiting on the server's clock
  it.concurrent(
    'cuts off a body that comes slower than REQUEST_BODY_MIN_RATE with 408, and frees the upload slot',
    async () => {
      const stack = await start({ REQUEST_BODY_MIN_RATE: '1024' });
      // 10 bytes a second
      const { answer, afterMs } = await slowUpload(stack.baseUrl, 1, 30_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string };
      expect(body.error).toMatch(
        /^PresQT Error: the request body came at \d+ bytes a second, slower than the 1024/,
      );
      // judged on its first 10 s of being read
      expect(afterMs).toBeLessThan(20_000);
      await uploadsAgain(stack);
    },
    60_000,
  );

  it.concurrent(
    'cuts off a request that takes longer than REQUEST_TIMEOUT_MS, however fast, and frees the slot',
    async () => {
      const stack = await start({ REQUEST_TIMEOUT_MS: '2000' });
      // 20 KiB a second, well above the minimum rate; Node checks the limit every 30 s
      const { answer } = await slowUpload(stack.baseUrl, 2048, 45_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('the request was not received within 2 s');
      await uploadsAgain(stack);
    },
    70_000,
  );
});
