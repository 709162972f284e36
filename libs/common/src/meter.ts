import { pipeline, Transform, type Readable } from 'node:stream';

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
  return pipeline(source, through, () => undefined);
}
