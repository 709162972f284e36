import type { Dir, Dirent, Stats } from 'node:fs';
import { closeSync, lstatSync, opendirSync, read, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { closeFd, countReadBuffer, openRegularFile, openRegularFileSync } from '@app/common';
import { promisify } from 'node:util';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isReserved } from './ids';

/** How many entries of one directory are read and examined between two turns of the event loop. */
const ENTRIES_PER_TURN = 64;
const MAX_METADATA_BYTES = 1 << 20;
const readFd = promisify(read);

/**
 * Reads a directory a chunk of entries at a time (never whole) and hands each to `handle`, a chunk at once.
 * Directory entries and their metadata are read with synchronous calls: on a local disk each takes a few
 * microseconds, where a round trip through libuv's thread pool costs tens (a listing of 20 projects answered
 * about 1.8× as many requests a second in `npm run bench:listing`). Reserved names are passed over.
 */
export async function forEachEntry(
  dir: string,
  handle: (entry: Dirent) => Promise<void> | void,
): Promise<void> {
  // a larger buffer than the default 32 entries: fewer reads of the directory
  const directory = opendirSync(dir, { bufferSize: ENTRIES_PER_TURN });
  try {
    await forEachInTurns(unreservedEntries(directory), handle);
  } finally {
    directory.closeSync();
  }
}

function* unreservedEntries(directory: Dir): Generator<Dirent> {
  for (let entry = directory.readSync(); entry !== null; entry = directory.readSync()) {
    if (!isReserved(entry.name)) yield entry;
  }
}

/**
 * Hands each of `items` to `handle`, ENTRIES_PER_TURN at once, waiting for those that return a promise
 * before the next chunk. Between chunks the event loop gets a turn, so that a huge directory does not hold
 * up other requests. A handler that has nothing to wait for returns nothing: no promise per item, which the
 * request's log context would follow as well.
 */
export async function forEachInTurns<Item>(
  items: Iterable<Item>,
  handle: (item: Item) => Promise<void> | void,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let next = iterator.next();
  while (!next.done) {
    const pending: Promise<void>[] = [];
    for (let handled = 0; !next.done && handled < ENTRIES_PER_TURN; handled++, next = iterator.next()) {
      const waiting = handle(next.value);
      if (waiting) pending.push(waiting);
    }
    if (pending.length > 0) await Promise.all(pending);
    if (!next.done) await nextTurn();
  }
}

/** `name`, as read from the directory `dir`, with it: a name read from a directory holds no `/`. */
export function entryPath(dir: string, name: string): string {
  // path.join would normalise the whole path again, once for every entry of a listing
  return `${dir}/${name}`;
}

/** The folders and the regular files directly in `dir`, each by name. */
export async function entryNames(dir: string): Promise<{ directories: string[]; files: string[] }> {
  const directories: string[] = [];
  const files: string[] = [];
  await forEachEntry(dir, (entry) => {
    if (entry.isDirectory()) directories.push(entry.name);
    else if (entry.isFile()) files.push(entry.name);
  });
  return { directories: directories.sort(byName), files: files.sort(byName) };
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** lstat that answers null for an entry removed since its directory was read (synchronous: see forEachEntry). */
export function lstatIfPresent(path: string): Stats | null {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

/** Files up to this size are read whole with synchronous calls (readSmallFile) rather than streamed. */
export const SMALL_FILE_BYTES = 64 * 1024;

/**
 * The first `size` bytes (the size walked) of the small regular file at `path`, read with synchronous calls. On
 * a local disk the open, fstat, read and close take a few microseconds together, where a stream's open, read
 * and close are three round trips through libuv's thread pool, each waking a pool thread that then competes
 * with the event loop for the cores (docs/architecture.md#reading-a-filesystem-targets-files). A symlink or a
 * FIFO swapped in since the walk is refused (openRegularFileSync).
 */
export function readSmallFile(path: string, size: number): Readable {
  const { fd } = openRegularFileSync(path);
  try {
    const bytes = Buffer.allocUnsafe(size);
    countReadBuffer(size);
    let filled = 0;
    for (let read = -1; filled < size && read !== 0; filled += read) {
      read = readSync(fd, bytes, filled, size - filled, filled);
    }
    return Readable.from([bytes.subarray(0, filled)], { objectMode: false });
  } finally {
    closeSync(fd);
  }
}

/** Reads a small JSON file without following a symlink; anything unreadable, oversized or invalid is undefined. */
export async function readSmallJson(path: string): Promise<unknown> {
  // a FIFO planted under this name cannot hang the open (openRegularFile)
  const file = await openRegularFile(path).catch(() => null);
  if (!file) return undefined;
  const { fd, stats } = file;
  try {
    if (stats.size > MAX_METADATA_BYTES) return undefined;
    const { buffer, bytesRead } = await readFd(fd, Buffer.alloc(stats.size), 0, stats.size, 0);
    return JSON.parse(buffer.toString('utf8', 0, bytesRead)) as unknown;
  } catch {
    return undefined;
  } finally {
    await closeFd(fd);
  }
}

/** The strings of a JSON array; none for anything else. */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
