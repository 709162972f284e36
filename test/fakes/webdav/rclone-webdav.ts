import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeTree } from '../../support/fs-fixtures';
import { freePort } from '../../support/ports';
import { killAndWait } from '../../support/processes';
import { FakeServer } from '../fake-server';

/** The rclone binary the tests start (Debian's package puts it there). */
const RCLONE = process.env.RCLONE_BINARY ?? '/usr/bin/rclone';

/**
 * A real WebDAV server: `rclone serve webdav` (golang.org/x/net/webdav under rclone's VFS) serving a
 * temporary directory as one user's files at `/dav/files/<user>/`, with Basic auth (`--user`, `--pass`), on
 * 127.0.0.1. The directory is seeded on disk; `--dir-cache-time 0s` makes the server read it afresh.
 */
export class RcloneWebdav {
  readonly dir = mkdtempSync(join(tmpdir(), 'presqt-rclone-webdav-'));
  private child?: ChildProcess;
  private port = 0;
  /** seeded projects get modification times a minute apart, oldest first, all in the past */
  private seeded = 0;

  constructor(
    readonly user = 'alice',
    readonly password = 'alice-app-password',
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The `api_url` option of a target at this server: the user's root, `{user}` in it. */
  get urlTemplate(): string {
    return `${this.origin}/dav/files/{user}/`;
  }

  get token(): string {
    return `${this.user}:${this.password}`;
  }

  async start(): Promise<this> {
    this.port = await freePort();
    this.child = spawn(
      RCLONE,
      [
        'serve',
        'webdav',
        this.dir,
        '--addr',
        `127.0.0.1:${this.port}`,
        '--user',
        this.user,
        '--pass',
        this.password,
        '--baseurl',
        `/dav/files/${this.user}`,
        '--dir-cache-time',
        '0s',
        '--config',
        '/dev/null',
      ],
      { stdio: 'ignore' },
    );
    for (let waited = 0; ; waited += 50) {
      if (await this.answers()) return this;
      if (waited > 10_000) throw new Error('rclone serve webdav did not start');
      await sleep(50);
    }
  }

  private answers(): Promise<boolean> {
    return new Promise((resolve) => {
      const probe = httpRequest(`${this.origin}/dav/files/${this.user}/`, { method: 'OPTIONS' }, (res) => {
        res.resume();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
      probe.end();
    });
  }

  /** A project (a top-level folder) holding `files` (a path ending in `/` is an empty folder), newer than those before. */
  seedProject(title: string, files: Record<string, string | Buffer>): string {
    const project = join(this.dir, title);
    mkdirSync(project, { recursive: true });
    const folders = Object.keys(files).filter((path) => path.endsWith('/'));
    for (const folder of folders) mkdirSync(join(project, folder), { recursive: true });
    writeTree(project, Object.fromEntries(Object.entries(files).filter(([path]) => !path.endsWith('/'))));
    const time = Date.now() / 1000 - 86_400 + 60 * ++this.seeded;
    utimesSync(project, time, time);
    return Buffer.from(title, 'utf8').toString('base64url');
  }

  reset(): void {
    for (const name of readdirSync(this.dir)) rmSync(join(this.dir, name), { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    if (this.child) await killAndWait(this.child);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Every method a WebDAV client sends. */
const METHODS = ['GET', 'PUT', 'PROPFIND', 'MKCOL', 'DELETE', 'MOVE', 'COPY', 'OPTIONS'];

/**
 * A FakeServer in front of the rclone server, passing every request on as it came (the Destination of a MOVE
 * or COPY pointed at the server behind): the shared e2e suite's faults and latency, over a real WebDAV server.
 */
export async function frontOf(server: RcloneWebdav): Promise<FakeServer> {
  const front = new FakeServer('WebDAV (rclone)');
  for (const method of METHODS) {
    front.route(
      method,
      '/{path}',
      async (incoming, answer) => {
        const headers: Record<string, string | string[] | undefined> = {
          ...incoming.headers,
          host: new URL(server.origin).host,
        };
        if (typeof headers.destination === 'string')
          headers.destination = headers.destination.replace(front.origin, server.origin);
        const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
          const outgoing = httpRequest(
            `${server.origin}${incoming.url.pathname}${incoming.url.search}`,
            { method: incoming.method, headers },
            resolve,
          );
          outgoing.once('error', reject);
          incoming.raw.pipe(outgoing);
        });
        const passed = Object.fromEntries(
          Object.entries(response.headers).filter(
            ([name, value]) =>
              typeof value === 'string' &&
              !['content-length', 'transfer-encoding', 'connection'].includes(name),
          ),
        ) as Record<string, string>;
        const length = Number(response.headers['content-length']);
        if (Number.isFinite(length) && incoming.method !== 'HEAD') {
          await answer.send(response.statusCode ?? 502, { size: length, open: () => response }, passed);
          return;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of response) chunks.push(chunk as Buffer);
        await answer.send(response.statusCode ?? 502, Buffer.concat(chunks), passed);
      },
      ['path'],
    );
  }
  return front.start();
}
