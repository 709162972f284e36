import { Transform, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

/**
 * The same bytes as `source`, with `onChunk` seeing each chunk on the way (the next one waits while what it
 * returns is pending); errors on either side propagate.
 */
export function meter(source: Readable, onChunk: (chunk: Buffer) => void | Promise<void>): Readable {
  const through = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const seen = onChunk(chunk);
      if (seen) seen.then(() => callback(null, chunk), callback);
      else callback(null, chunk);
    },
  });
  // the failure reaches whoever reads `through`
  pipeInto(source, through).catch(() => undefined);
  return through;
}

/**
 * Pipes `source` into `through`, each destroyed when the other fails (or `through` is closed early), as
 * stream.pipeline does; resolves once `through` has taken all of `source`, rejects with the failure. Not
 * pipeline itself: it makes an AbortController per call and aborts it at the end, which builds a
 * DOMException with its stack, 0.14 ms a file of a 1,024-file download here (a CPU profile of the bag zip's
 * path: 148 ms of 1,024 files' 2.5 s on the main thread).
 */
export function pipeInto(source: Readable, through: Transform): Promise<void> {
  source.once('error', (error) => through.destroy(error));
  through.once('close', () => source.destroy());
  source.pipe(through);
  return finished(through, { readable: false });
}
