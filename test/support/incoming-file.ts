import { Readable } from 'node:stream';
import type { IncomingFile } from '@app/connectors';

/**
 * An incoming file of `content` that counts how often it is opened, streamed in chunks of `chunkSize` bytes
 * (one chunk unless given), as a job hands files to a connector's writer; with `known`, the checksums its
 * source vouches for (IncomingFile.knownHashes).
 */
export function countedFile(
  content: string | Buffer,
  chunkSize?: number,
  known?: Record<string, string>,
): IncomingFile & { opened: number } {
  const bytes = Buffer.from(content);
  const step = chunkSize ?? Math.max(bytes.length, 1);
  const file = {
    size: bytes.length,
    opened: 0,
    open: async () => {
      file.opened++;
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += step) chunks.push(bytes.subarray(at, at + step));
      return Readable.from(chunks);
    },
    ...(known && {
      knownHashes: async (wanted: readonly string[]) =>
        Object.fromEntries(Object.entries(known).filter(([algorithm]) => wanted.includes(algorithm))),
    }),
  };
  return file;
}
