import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * How much of a rejected request's body is read and thrown away so that a client which sends its whole body
 * before reading (Python's http.client, urllib, requests) still gets the answer; beyond this the connection
 * is closed after the answer.
 */
export const REJECTED_BODY_DISCARD_BYTES = 64 * 2 ** 20;

/** Requests that asked for `100 Continue` and were sent it. */
const continued = new WeakSet<IncomingMessage>();

/**
 * Adapts Node's HTTP server to the API's protocol rules: a request with `Expect: 100-continue` is told to go on
 * only when the application starts reading its body (after the checks that come first).
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
