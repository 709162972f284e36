import { close, open, read } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';

/** A kept file, opened: its bytes go to a stream (an HTTP answer) once the caller is ready for them. */
export interface FileBody {
  /**
   * Writes every byte to `output` and ends it. Rejects when reading fails, when `output` fails, or when it
   * closes before the end (a client that went away); the file is let go of at once either way, and `output`
   * is destroyed on a failure. Call once.
   */
  sendTo(output: Writable): Promise<void>;
}

/** A stream's bytes as a FileBody (a file of a remote store). */
export function streamBody(stream: Readable): FileBody {
  return { sendTo: (output) => pipeline(stream, output) };
}

/** How much is read at a time, and how many such chunks may be on their way to the client at once. */
const CHUNK_BYTES = 1 << 20;
const CHUNKS_IN_FLIGHT = 2;

/**
 * A local file as a FileBody, sent from a few buffers reused for every chunk. `fs.createReadStream` allocates a
 * new buffer for each chunk; serving a 1 GiB zip that way made garbage at the network's pace, and the API,
 * whose heap is large, spent most of its CPU in full collections of it (bench/throughput.ts, docs/benchmarks.md).
 */
export async function openFileBody(path: string): Promise<FileBody> {
  const fd = await new Promise<number>((resolve, reject) =>
    open(path, 'r', (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  let sent = false;
  return {
    async sendTo(output) {
      if (sent) throw new Error('a file body is sent once');
      sent = true;
      try {
        await sendFd(fd, output);
      } catch (error) {
        output.destroy();
        throw error;
      } finally {
        await new Promise((resolve) => close(fd, resolve));
      }
    },
  };
}

async function sendFd(fd: number, output: Writable): Promise<void> {
  // rejects as soon as the output fails or closes early, whatever the loop is waiting for
  const ended = finished(output);
  ended.catch(() => undefined);
  const buffers = Array.from({ length: CHUNKS_IN_FLIGHT }, () => Buffer.allocUnsafeSlow(CHUNK_BYTES));
  const writes: Promise<void>[] = [];
  for (let turn = 0, position = 0; ; turn++) {
    const slot = turn % CHUNKS_IN_FLIGHT;
    // a buffer is read into again only once the output has let go of its last chunk
    await Promise.race([writes[slot], ended]);
    // not raced with `ended`: the descriptor is closed only once no read is under way on it
    const bytes = await readAt(fd, buffers[slot], position);
    if (bytes === 0) break;
    position += bytes;
    writes[slot] = written(output, buffers[slot].subarray(0, bytes));
  }
  await Promise.race([Promise.all(writes), ended]);
  output.end();
  await ended;
}

function readAt(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    read(fd, buffer, 0, buffer.length, position, (error, bytes) => (error ? reject(error) : resolve(bytes))),
  );
}

/** Resolves once `output` has handed `chunk` on (the buffer may be reused then). */
function written(output: Writable, chunk: Buffer): Promise<void> {
  const done = new Promise<void>((resolve, reject) =>
    output.write(chunk, (error) => (error ? reject(error) : resolve())),
  );
  // a closed output may fail its pending writes after the loop has stopped waiting on them
  done.catch(() => undefined);
  return done;
}
