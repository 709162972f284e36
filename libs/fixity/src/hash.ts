import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Feeds every chunk to several digests at once, so a stream is read only one time. */
export interface MultiHasher {
  update(chunk: Buffer): void;
  /** hex digest per algorithm; call once, after the last chunk */
  digest(): Record<string, string>;
}

/** Throws at once for an algorithm that node:crypto does not know, before any byte is read. */
export function createMultiHasher(algorithms: readonly string[]): MultiHasher {
  const hashes = new Map<string, Hash>(algorithms.map((algorithm) => [algorithm, createHash(algorithm)]));
  return {
    update(chunk) {
      for (const hash of hashes.values()) hash.update(chunk);
    },
    digest() {
      return Object.fromEntries([...hashes].map(([algorithm, hash]) => [algorithm, hash.digest('hex')]));
    },
  };
}

/** Hex digests of a file for each algorithm, reading it once in 1 MiB chunks (never whole into memory). */
export async function hashFile(path: string, algorithms: readonly string[]): Promise<Record<string, string>> {
  const hasher = createMultiHasher(algorithms);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }))
    hasher.update(chunk as Buffer);
  return hasher.digest();
}
