import type { Server, Socket } from 'node:net';

/** A server a test stops at once. */
export interface TestServer {
  close(): Promise<void>;
}

/**
 * Closes `server` without waiting for its clients: the connections still open are destroyed. A client can
 * leave connections behind (a browser's one never past its TLS handshake, say, or a kept-alive one of the
 * service under test), and a plain close() waits on them.
 */
export function closingAtOnce(server: Server): TestServer {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
