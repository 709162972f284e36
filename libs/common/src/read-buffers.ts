/** Bytes of read buffers, from every file and upstream of the process, between two young-generation collections. */
const COLLECT_EVERY_BYTES = 8 << 20;
let readSinceCollection = 0;

/**
 * Counts `bytes` of buffers just read (a file's chunk, a chunk of an upstream's answer), and collects the young
 * generation once COLLECT_EVERY_BYTES of them were read since the last time, where the process exposes `gc`
 * (the worker: scripts/start-app.sh). Node reads each chunk into a buffer of its own, dead as soon as its
 * consumer is done with it, but V8 collects them only when the young generation's heap fills or holds 32 MiB
 * of buffers, and their tiny objects never fill it first: a job streaming a 1 GiB file kept 20 to 35 MiB of
 * dead buffers, and the allocator's pages behind them, at the worker's peak (docs/memory.md). A minor
 * collection of them takes well under a millisecond.
 */
export function countReadBuffer(bytes: number): void {
  readSinceCollection += bytes;
  if (readSinceCollection < COLLECT_EVERY_BYTES || !globalThis.gc) return;
  readSinceCollection = 0;
  globalThis.gc({ type: 'minor' });
}
