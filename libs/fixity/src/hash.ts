import { createHash, type Hash } from 'node:crypto';

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
