import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import express from 'express';
import { closingAtOnce, type TestServer } from '../support/closing-server';

/**
 * Where test/browser/build-client.sh leaves the PresQT web client's production build: outside this
 * repository, since the client carries no license.
 */
export const CLIENT_CACHE = process.env.PRESQT_UI_CACHE ?? join(homedir(), '.cache', 'presqt-ui');
export const CLIENT_BUILD = join(CLIENT_CACHE, 'build');
/** the `host:port` the client was built to call (it inlines its API address at build time) */
export const CLIENT_API_ADDRESS_FILE = join(CLIENT_CACHE, 'api-address');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function clientIsBuilt(): boolean {
  return existsSync(join(CLIENT_BUILD, 'index.html')) && existsSync(CLIENT_API_ADDRESS_FILE);
}

/** The API address the cached build calls, e.g. `127.0.0.1:48443`. */
export function builtApiAddress(): { host: string; port: number } {
  const [host, port] = readFileSync(CLIENT_API_ADDRESS_FILE, 'utf8').trim().split(':');
  return { host, port: Number(port) };
}

export interface Certificate {
  key: Buffer;
  cert: Buffer;
}

/** A self-signed certificate for 127.0.0.1 (the browser is told to ignore that nobody signed it). */
export function selfSignedCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'presqt-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/**
 * TLS on `port` in front of the plain-HTTP API on `apiPort`, as a reverse proxy would be: the client
 * hard-codes https. Bytes pass through unchanged, so the API sees exactly what the browser sends.
 */
export async function startTlsFront(
  certificate: Certificate,
  port: number,
  apiPort: number,
): Promise<TestServer> {
  const server = createTlsServer(certificate, (secure) => {
    const plain = connect(apiPort, '127.0.0.1');
    secure.pipe(plain).pipe(secure);
    // either side gone (an error, or the browser closed) ends the other
    const close = () => {
      secure.destroy();
      plain.destroy();
    };
    for (const socket of [secure, plain]) socket.on('error', close).on('close', close);
  });
  const front = closingAtOnce(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return front;
}

/** The client's build served over https under /ui/, as its `homepage` expects; answers its origin. */
export async function startClientSite(certificate: Certificate): Promise<TestServer & { origin: string }> {
  const app = express();
  app.use('/ui', express.static(CLIENT_BUILD));
  const server = createHttpsServer(certificate, app);
  const site = closingAtOnce(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { ...site, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
