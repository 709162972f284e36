import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { editText, makeBagZip } from '../support/bags';
import { filesystemEntry, writeTargetsFile } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const SEND_WHOLE_BODY = join(__dirname, '..', 'support', 'send_whole_body.py');
const UPLOAD_PATH = '/api_v1/targets/fs/resources/';
const UPLOAD_HEADERS = {
  'presqt-destination-token': 'alice-token',
  'presqt-file-duplicate-action': 'ignore',
  'presqt-email-opt-in': '',
};

/** Python's http.client sending a multipart body of `bytes` random bytes whole before reading the answer. */
async function sendWholeBody(
  url: string,
  bytes: number,
  headers: Record<string, string>,
): Promise<{ status?: number; body?: string; error?: string }> {
  const { stdout } = await promisify(execFile)('python3', [
    SEND_WHOLE_BODY,
    url,
    String(bytes),
    JSON.stringify(headers),
  ]);
  return JSON.parse(stdout) as { status?: number; body?: string; error?: string };
}

/**
 * Writes `head` on a raw connection, then `afterContinue` once the server answers `100 Continue` (if it
 * does), and resolves with everything the server sent before closing the connection or going quiet.
 */
function exchange(port: number, head: string | Buffer, afterContinue?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const quiet = () => setTimeout(() => socket.destroy(), 3000);
    let timer = quiet();
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      clearTimeout(timer);
      timer = quiet();
      if (afterContinue && received === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write(afterContinue);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.write(head);
  });
}

/** The status line and JSON body of the last answer in what a raw connection received. */
function lastAnswer(received: string): { statusLine: string; json: unknown } {
  const start = [...received.matchAll(/^HTTP\/1\.1 \d{3} /gm)].at(-1)?.index ?? 0;
  const [head, body] = received.slice(start).split('\r\n\r\n');
  return { statusLine: head.split('\r\n')[0], json: JSON.parse(body) };
}

describe('protocol edges of the API (real API, worker and Redis)', () => {
  let stack: Stack;
  let port: number;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'presqt-protocol-'));
    const targetsFile = writeTargetsFile([filesystemEntry('fs', root)]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile } });
    port = Number(new URL(stack.baseUrl).port);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe('a rejected body reaches a client that sends it whole first', () => {
    // 16 MiB is more than loopback's socket buffers hold, so the server must read it for the answer to arrive.
    const BODY_BYTES = 16 << 20;

    it.each([
      ['keeping the connection open', {}],
      ['asking to close it, as urllib does', { Connection: 'close' }],
    ])('%s', async (_case, connection) => {
      const { 'presqt-destination-token': _token, ...withoutToken } = UPLOAD_HEADERS;
      const answer = await sendWholeBody(`${stack.baseUrl}${UPLOAD_PATH}`, BODY_BYTES, {
        ...withoutToken,
        ...connection,
      });
      expect(answer).toEqual({
        status: 400,
        body: JSON.stringify({
          error: "PresQT Error: 'presqt-destination-token' missing in the request headers.",
        }),
      });
    });

    it('also when the target refuses the token after the headers were read', async () => {
      const answer = await sendWholeBody(`${stack.baseUrl}${UPLOAD_PATH}`, BODY_BYTES, {
        ...UPLOAD_HEADERS,
        'presqt-destination-token': 'not-a-token',
        Connection: 'close',
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body!)).toEqual({ error: expect.stringMatching(/token/i) });
    });

    it('up to a bound: a larger rejected body is not read to its end', async () => {
      const { 'presqt-destination-token': _token, ...withoutToken } = UPLOAD_HEADERS;
      const answer = await sendWholeBody(`${stack.baseUrl}${UPLOAD_PATH}`, 96 << 20, withoutToken);
      expect(answer.error).toMatch(/BrokenPipeError|ConnectionResetError/);
      await request(stack.baseUrl).get('/api_v1/').expect(200);
    });
  });

  describe('Expect: 100-continue', () => {
    const multipartHead = (headers: Record<string, string>, body: Buffer) =>
      `POST ${UPLOAD_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nExpect: 100-continue\r\n` +
      'Content-Type: multipart/form-data; boundary=b\r\n' +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const multipart = (zip: Buffer) =>
      Buffer.concat([
        Buffer.from(
          '--b\r\nContent-Disposition: form-data; name="presqt-file"; filename="bag.zip"\r\n' +
            'Content-Type: application/zip\r\n\r\n',
        ),
        zip,
        Buffer.from('\r\n--b--\r\n'),
      ]);

    it('is refused without 100 Continue when the headers are not acceptable', async () => {
      const body = multipart(Buffer.alloc(1 << 20));
      const { 'presqt-destination-token': _token, ...withoutToken } = UPLOAD_HEADERS;
      const received = await exchange(port, multipartHead(withoutToken, body), body);
      expect(received).not.toContain('100 Continue');
      expect(received).toMatch(/\r\nConnection: close\r\n/i);
      expect(lastAnswer(received)).toEqual({
        statusLine: 'HTTP/1.1 400 Bad Request',
        json: { error: "PresQT Error: 'presqt-destination-token' missing in the request headers." },
      });
    });

    it('gets 100 Continue once the checks before the body pass, and the upload starts', async () => {
      const body = multipart(await makeBagZip({ files: { 'Continued/a.txt': 'continued' } }));
      const received = await exchange(port, multipartHead(UPLOAD_HEADERS, body), body);
      expect(received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
      expect(lastAnswer(received)).toEqual({
        statusLine: 'HTTP/1.1 202 Accepted',
        json: {
          message: 'The server is processing the request.',
          upload_job: `http://127.0.0.1:${port}/api_v1/job_status/upload/`,
        },
      });
      const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', {
        'presqt-destination-token': 'alice-token',
      });
      expect(done.body).toMatchObject({ status: 'finished', message: 'Upload successful.' });
      expect(readFileSync(join(root, 'alice', 'Continued', 'a.txt'), 'utf8')).toBe('continued');
    });
  });

  describe('BagIt tag files read as RFC 8493 section 2 says', () => {
    it.each([
      [
        'a bagit.txt with a space before a colon',
        'bagit.txt',
        (text: string) => text.replace('BagIt-Version:', 'BagIt-Version :'),
        'bagit.txt line 1 is not "BagIt-Version: M.N": "BagIt-Version : 1.0"',
      ],
      [
        'a manifest line whose checksum is one digit short',
        'manifest-sha256.txt',
        (text: string) => text.slice(1),
        'manifest-sha256.txt line 1 is not "<checksum> <path>" with a checksum of 64 hex digits',
      ],
    ])('an upload with %s is refused with 400 naming the line', async (_case, tagFile, edit, error) => {
      const zip = await makeBagZip({
        files: { 'Malformed/a.txt': 'a' },
        mutate: (bag) => editText(bag, tagFile, edit),
      });
      const answer = await request(stack.baseUrl)
        .post(UPLOAD_PATH)
        .set(UPLOAD_HEADERS)
        .attach('presqt-file', zip, 'bag.zip')
        .expect(400);
      expect(answer.body).toEqual({
        error: expect.stringContaining(`PresQT Error: The package is not a valid BagIt bag: ${error}`),
      });
      expect(existsSync(join(root, 'alice', 'Malformed'))).toBe(false);
    });
  });

  describe("errors Node's HTTP server answers itself are JSON too", () => {
    it.each([
      [
        'a 20 KB header',
        `GET /api_v1/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'HTTP/1.1 431 Request Header Fields Too Large',
        /headers are larger than the 16384 bytes/,
      ],
      [
        'a malformed request line',
        'GET /api_v1/ HTTP/1.1 extra\r\nHost: x\r\n\r\n',
        'HTTP/1.1 400 Bad Request',
        /not valid HTTP\/1\.1/,
      ],
      [
        'a malformed header',
        'GET /api_v1/ HTTP/1.1\r\nHost x\r\n\r\n',
        'HTTP/1.1 400 Bad Request',
        /not valid HTTP\/1\.1/,
      ],
      [
        'an expectation other than 100-continue',
        'GET /api_v1/ HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n',
        'HTTP/1.1 417 Expectation Failed',
        /Expect: 100-continue/,
      ],
    ])('%s', async (_case, raw, statusLine, message) => {
      const received = await exchange(port, raw);
      expect(lastAnswer(received)).toEqual({ statusLine, json: { error: expect.stringMatching(message) } });
      expect(received).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
    });
  });
});
