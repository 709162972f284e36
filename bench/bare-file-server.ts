/**
 * What serving a zip costs without the API: a bare Node `http` server answering every request with one file,
 * `fs.createReadStream` piped into the response, and nothing else (no framework, no logging, no headers but
 * the length). `?chunk=<bytes>` sets the stream's read size (Node's default is 64 KiB). Prints its port.
 *
 *   node --import tsx bench/bare-file-server.ts <file>
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const file = process.argv[2];
const size = statSync(file).size;

const server = createServer((request, response) => {
  const chunk = Number(new URL(request.url ?? '/', 'http://bare').searchParams.get('chunk') ?? 64 * 1024);
  response.writeHead(200, { 'content-type': 'application/zip', 'content-length': size });
  createReadStream(file, { highWaterMark: chunk }).pipe(response);
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
