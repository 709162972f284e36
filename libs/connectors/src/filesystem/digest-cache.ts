import type { Stats } from 'node:fs';
import { hashFile } from '@app/fixity';
import { HASH_ALGORITHMS } from '../connector';

const DIGEST_CACHE_ENTRIES = 1000;

/** File digests recently computed, keyed by what changes whenever the file's content does. */
export class DigestCache {
  private readonly entries = new Map<string, Promise<Record<string, string>>>();

  get(
    path: string,
    stats: Stats,
    algorithms: readonly string[] = HASH_ALGORITHMS,
  ): Promise<Record<string, string>> {
    const key = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${algorithms.join(',')}`;
    let digests = this.entries.get(key);
    if (digests) {
      this.entries.delete(key); // re-inserted below as the most recently used
    } else {
      // Caching the promise lets concurrent requests for one file share a single pass over it.
      const computing = hashFile(path, algorithms);
      computing.catch(() => this.entries.get(key) === computing && this.entries.delete(key));
      digests = computing;
    }
    this.entries.set(key, digests);
    if (this.entries.size > DIGEST_CACHE_ENTRIES) {
      const [oldest] = this.entries.keys();
      this.entries.delete(oldest);
    }
    return digests;
  }
}
