import { close, createReadStream, open, read, type ReadStream } from 'node:fs';
import { countReadBuffer } from './read-buffers';

type StreamOptions = Parameters<typeof createReadStream>[1] & object;

/** `fs.read`, with the buffer the stream allocated for it counted (the stream's last read may find nothing). */
function readCounted(
  fd: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number | null,
  callback: (error: NodeJS.ErrnoException | null, bytesRead: number, buffer: Buffer) => void,
): void {
  countReadBuffer(buffer.length);
  read(fd, buffer, offset, length, position, callback);
}

/**
 * A local file's bytes as a stream, as `fs.createReadStream(path, options)` gives them (`path` '' with an
 * `fd`), its read buffers counted towards the process's collection of dead ones (countReadBuffer).
 */
export function readLocalFile(path: string, options: StreamOptions = {}): ReadStream {
  return createReadStream(path, { ...options, fs: { open, read: readCounted, close } });
}
