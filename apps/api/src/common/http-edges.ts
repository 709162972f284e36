import {
  STATUS_CODES,
  maxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestLimits } from './request-limits.settings';

/**
 * How much of a rejected request's body is read and thrown away so that a client which sends its whole body
 * before reading (Python's http.client, urllib, requests) still gets the answer; beyond this the connection
 * is closed after the answer.
 */
export const REJECTED_BODY_DISCARD_BYTES = 64 * 2 ** 20;

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

function errorBody(message: string): Buffer {
  return Buffer.from(JSON.stringify({ error: message }));
}

/** Requests that asked for `100 Continue` and were sent it. */
const continued = new WeakSet<IncomingMessage>();

const BODY_PACE_WINDOW_SECONDS = 10;

/**
 * Adapts Node's HTTP server to the API's protocol rules: a request with `Expect: 100-continue` is told to go on
 * only when the application starts reading its body (after the checks that come first), a request must arrive
 * within `limits` (a body at 1 byte a second would otherwise hold an upload's slot for minutes), and the errors
 * Node answers itself (malformed requests, oversized headers, a request not received in time) are answered as
 * `{"error": ...}` like every other.
 */
export function applyProtocolEdges(server: Server, limits: RequestLimits): void {
  // Node's own bound on a whole request, checked every 30 s; its default (300 s) cut off any larger upload.
  // Node applies a changed requestTimeout only when it is not below headersTimeout.
  server.requestTimeout = limits.timeoutMs;
  server.headersTimeout = Math.min(server.headersTimeout, limits.timeoutMs);
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    watchBodyPace(request, response, limits.minBodyBytesPerSecond),
  );
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    // Streams emit 'resume' when something starts reading them (a body parser's 'data', multer's pipe).
    request.once('resume', () => {
      if (response.headersSent) return;
      continued.add(request);
      response.writeContinue();
    });
    server.emit('request', request, response);
  });
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = errorBody("PresQT Error: the only expectation the server meets is 'Expect: 100-continue'.");
    response.writeHead(417, { ...JSON_HEADERS, 'Content-Length': body.length, Connection: 'close' });
    response.end(body);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, limits),
  );
}

/**
 * Cuts off a request whose body comes slower than `minBytesPerSecond` with 408 and closes its connection, so
 * that whatever reads the body fails and lets go of what it holds (an upload's slot, its partial file). Only
 * the seconds during which the application reads the body count: not those before it starts (its checks come
 * first; a client waiting for `100 Continue` sends nothing) nor those while it holds the body back.
 */
function watchBodyPace(request: IncomingMessage, response: ServerResponse, minBytesPerSecond: number): void {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (request.headers['transfer-encoding'] === undefined && !(declared > 0)) return;
  const socket = request.socket;
  let counted = socket.bytesRead;
  let window = { seconds: 0, bytes: 0 };
  const pace = setInterval(() => {
    const arrived = socket.bytesRead - counted;
    counted = socket.bytesRead;
    if (request.readableFlowing !== true) return;
    window.seconds += 1;
    window.bytes += arrived;
    if (window.seconds < BODY_PACE_WINDOW_SECONDS) return;
    if (window.bytes < minBytesPerSecond * BODY_PACE_WINDOW_SECONDS) {
      stop();
      const rate = Math.floor(window.bytes / BODY_PACE_WINDOW_SECONDS);
      answerAndClose(
        request,
        response,
        `PresQT Error: the request body came at ${rate} bytes a second, slower than the ${minBytesPerSecond} the server waits for; the request was cut off. Send it again over a faster connection.`,
      );
    }
    window = { seconds: 0, bytes: 0 };
  }, 1000);
  pace.unref();
  const stop = () => clearInterval(pace);
  request.once('end', stop);
  request.once('close', stop);
}

/**
 * Answers 408 at once and then ends the request with an error, so that what reads its body (multer) fails
 * and lets go of what it holds: a request whose answer has finished is no longer aborted when its
 * connection closes, and would be read from for ever.
 */
function answerAndClose(request: IncomingMessage, response: ServerResponse, message: string): void {
  const cutOff = new Error(message);
  if (response.headersSent) {
    request.destroy(cutOff);
    return;
  }
  const body = errorBody(message);
  response.writeHead(408, { ...JSON_HEADERS, 'Content-Length': body.length, Connection: 'close' });
  response.end(body, () => request.destroy(cutOff));
}

/** Node's own choice of status for a request it could not parse, with the same wording for every client. */
function clientErrorAnswer(
  code: string | undefined,
  limits: RequestLimits,
): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message: `PresQT Error: the request's headers are larger than the ${maxHeaderSize} bytes the server accepts.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        message: 'PresQT Error: the chunk extensions of the request body are too large.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message: `PresQT Error: the request was not received within ${limits.timeoutMs / 1000} s; the request was cut off.`,
      };
    default:
      return {
        status: 400,
        message:
          'PresQT Error: the request is not valid HTTP/1.1 (its request line or a header is malformed).',
      };
  }
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, limits: RequestLimits): void {
  // As Node does: answer only on a socket that can still be written and has no answer under way.
  const bytesWritten = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
  if (error.code !== 'ECONNRESET' && socket.writable && bytesWritten === 0) {
    const { status, message } = clientErrorAnswer(error.code, limits);
    const body = errorBody(message);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_HEADERS['Content-Type']}\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body);
  }
  (socket as Socket).destroySoon();
}

/**
 * Before an error is answered: reads and discards what is left of the request's body, up to `maxBytes`, so
 * that the answer reaches a client still sending it. When the body is larger, or when the client is waiting
 * for a `100 Continue` it was not sent (and so sends no body), the answer closes the connection instead.
 */
export async function discardRestOfBody(
  request: IncomingMessage,
  response: ServerResponse,
  maxBytes = REJECTED_BODY_DISCARD_BYTES,
): Promise<void> {
  if (request.complete || request.destroyed) return;
  const awaitsContinue = /100-continue/i.test(request.headers.expect ?? '') && !continued.has(request);
  if (awaitsContinue || !(await drained(request, maxBytes))) response.setHeader('Connection', 'close');
}

/** Whether the body ended within `maxBytes`; it is read in flowing mode and dropped. */
function drained(request: IncomingMessage, maxBytes: number): Promise<boolean> {
  return new Promise((resolve) => {
    let received = 0;
    const finish = (ended: boolean) => {
      request.off('data', count);
      request.off('end', onEnd);
      request.off('close', onClose);
      request.pause();
      resolve(ended);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(request.complete);
    request.on('data', count);
    request.once('end', onEnd);
    request.once('close', onClose);
    request.resume();
  });
}
