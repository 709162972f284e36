import { createHash, type Hash } from 'node:crypto';
import { GIT_BLOB_SHA1 } from './algorithms';

/** Feeds every chunk to several digests at once, so a stream is read only one time. */
export interface MultiHasher {
  update(chunk: Buffer): void;
  /** hex digest per algorithm; call once, after the last chunk */
  digest(): Record<string, string>;
}

/**
 * Throws at once for an algorithm that node:crypto does not know, before any byte is read. `size`, the bytes'
 * count, is needed only for GIT_BLOB_SHA1, whose header holds it.
 */
export function createMultiHasher(algorithms: readonly string[], size?: number): MultiHasher {
  const hashes = new Map<string, Hash>(algorithms.map((algorithm) => [algorithm, hashOf(algorithm, size)]));
  return {
    update(chunk) {
      for (const hash of hashes.values()) hash.update(chunk);
    },
    digest() {
      return Object.fromEntries([...hashes].map(([algorithm, hash]) => [algorithm, hash.digest('hex')]));
    },
  };
}

function hashOf(algorithm: string, size: number | undefined): Hash {
  if (algorithm !== GIT_BLOB_SHA1) return createHash(algorithm);
  if (size === undefined) throw new Error(`${GIT_BLOB_SHA1} needs the size of the bytes`);
  return createHash('sha1').update(`blob ${size}\0`);
}
