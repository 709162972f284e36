import {
  STATUS_CODES,
  maxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

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

/**
 * Adapts Node's HTTP server to the API's protocol rules: a request with `Expect: 100-continue` is told to go on
 * only when the application starts reading its body (after the checks that come first), and the errors Node
 * answers itself (malformed requests, oversized headers) are answered as `{"error": ...}` like every other.
 */
export function applyProtocolEdges(server: Server): void {
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
    answerClientError(error, socket),
  );
}

/** Node's own choice of status for a request it could not parse, with the same wording for every client. */
function clientErrorAnswer(code: string | undefined): { status: number; message: string } {
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
      return { status: 408, message: 'PresQT Error: the request was not received in time.' };
    default:
      return {
        status: 400,
        message:
          'PresQT Error: the request is not valid HTTP/1.1 (its request line or a header is malformed).',
      };
  }
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node does: answer only on a socket that can still be written and has no answer under way.
  const bytesWritten = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
  if (error.code !== 'ECONNRESET' && socket.writable && bytesWritten === 0) {
    const { status, message } = clientErrorAnswer(error.code);
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
