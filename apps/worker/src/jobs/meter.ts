import { pipeline, Transform, type Readable } from 'node:stream';

/** The same bytes as `source`, with `onChunk` seeing each chunk on the way; errors on either side propagate. */
export function meter(source: Readable, onChunk: (chunk: Buffer) => void): Readable {
  const through = new Transform({
    highWaterMark: 1 << 20,
    transform(chunk: Buffer, _encoding, callback) {
      onChunk(chunk);
      callback(null, chunk);
    },
  });
  return pipeline(source, through, () => undefined);
}
