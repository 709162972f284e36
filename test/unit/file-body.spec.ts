import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { openFileBody } from '@app/job-files';

/** The files this process has open. */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

describe('openFileBody (a kept file sent from reused buffers)', () => {
  let dir: string;
  let server: Server | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'presqt-file-body-'))));
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** An HTTP server answering every request with `file` through openFileBody; each send's outcome. */
  async function serve(file: string, sends: Promise<unknown>[]): Promise<string> {
    server = createServer((request, response) => {
      const sending = openFileBody(file).then((body) => body.sendTo(response));
      sending.catch(() => undefined);
      sends.push(sending);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  const fetchResponse = (url: string) =>
    new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));

  it('sends every byte of a file whose size is not a whole number of buffers, and closes it', async () => {
    const file = join(dir, 'zip');
    const content = randomBytes(3 * (1 << 20) + 12_345);
    writeFileSync(file, content);
    const sends: Promise<unknown>[] = [];
    const received = await buffer(await fetchResponse(await serve(file, sends)));
    expect(received.equals(content)).toBe(true);
    await expect(sends[0]).resolves.toBeUndefined();
    expect(openFiles()).not.toContain(file);
  });

  it('sends an empty file as an empty body', async () => {
    const file = join(dir, 'empty');
    writeFileSync(file, '');
    const output = new PassThrough();
    const received = buffer(output);
    await (await openFileBody(file)).sendTo(output);
    expect((await received).length).toBe(0);
  });

  it('lets go of the file as soon as the client goes away, and rejects', async () => {
    const file = join(dir, 'large');
    writeFileSync(file, randomBytes(48 << 20));
    const sends: Promise<unknown>[] = [];
    const response = await fetchResponse(await serve(file, sends));
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    expect(openFiles()).toContain(file);
    response.destroy();
    await expect(sends[0]).rejects.toThrow();
    expect(openFiles()).not.toContain(file);
  });

  it('destroys its output and rejects when the file cannot be read', async () => {
    // a directory opens for reading on Linux, and fails the first read
    const body = await openFileBody(dir);
    const output = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    await expect(body.sendTo(output)).rejects.toThrow(/EISDIR/);
    expect(output.destroyed).toBe(true);
  });

  it('rejects at once for a file that is not there', async () => {
    await expect(openFileBody(join(dir, 'gone'))).rejects.toThrow(/ENOENT/);
  });
});
