import type * as Crypto from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import { closeFd, openRegularFile } from '@app/common';
import type { ByteRange, ThreadModules } from './hashing-worker';
import { hashingThreads, type HashingThread } from './hashing-threads';
import { shareOut } from './threaded-hasher';

/** A new file that a copy creates on this machine's disk (copyFile). */
export interface CopyTarget {
  /** where it is created; nothing may be there */
  path: string;
  /** what it is read back and hashed with once written (docs/behaviour.md#fixity); none: it is not read back */
  readBack: readonly string[];
  /** where it is renamed to once complete and read back; absent: it stays at `path` */
  renameTo?: string;
}

/**
 * The data of a zip entry laid out ahead of it (ZipWriter.reserve), which a copy writes in place at `at` of the
 * existing file `zip`, computing the entry's CRC-32 beside its digests. Not read back: the zip's readers check
 * the CRC-32.
 */
export interface EntryTarget {
  zip: string;
  at: number;
}

/**
 * What a copy computed: the digests of the bytes it copied, and of the file as stored (read back); how many
 * bytes it copied (fewer than asked where the source ends first), and for an EntryTarget their CRC-32.
 */
export interface CopiedFile {
  copied: Record<string, string>;
  stored: Record<string, string>;
  length: number;
  crc32?: number;
}

/**
 * What a hashing thread is asked: a file to hash (`path`, or a `range` of it), bytes to copy from one open file
 * into another (`to`; telling a read-back's `progress` how far it wrote) or only to read and hash from it, a
 * file to copy into a new one, both by path (`copyFile`), or a file to read back as it is written (`follow`:
 * see ReadBack).
 */
interface Request {
  family: 'file';
  id: number;
  path?: string;
  copy?: {
    from: number;
    start?: number;
    to?: number;
    at?: number;
    length: number;
    progress?: SharedArrayBuffer;
  };
  copyFile?: { from: string; start?: number; length: number; to: CopyTarget | EntryTarget };
  follow?: { fd: number; progress: SharedArrayBuffer; start?: number };
  algorithms: string[];
  range?: ByteRange;
}

interface Reply {
  family: 'file';
  id: number;
  digests?: Record<string, string>;
  /** a copyFile's digests of the file read back */
  stored?: Record<string, string>;
  /** a copyFile's count of bytes copied, and into an EntryTarget their CRC-32 */
  length?: number;
  crc32?: number;
  /** a system call's failure keeps its code and call, so that it is reported as one (failureOf) */
  error?: { message: string; code?: string; syscall?: string };
}

/**
 * A read-back's progress, shared between the writer and the thread reading the file back, in BigInt64 words
 * (so that Atomics can wait on them), by index: a counter bumped on every change (what the reader waits on),
 * the bytes written so far, and the write's state (writing, ended or abandoned). Given to the thread as its
 * settings: a thread's program cannot see this module's constants.
 */
const PROGRESS = { changes: 0, written: 1, state: 2, writing: 0, ended: 1, abandoned: 2, words: 3 };
type ProgressLayout = typeof PROGRESS;

/**
 * The thread's program, hashing a file off the main thread: the thread reads (synchronously: it does nothing
 * else) and hashes it in 1 MiB chunks, so the main thread (which also streams and hashes job data) and the
 * hashing use separate cores. A copy writes each chunk on into the other file as well, and tells a read-back of
 * that file how far it has written.
 */
function hashFilesOnThread({ port, crypto, fs, zlib, chunks }: ThreadModules, layout: ProgressLayout): void {
  // the source's open file is read from `start` (its start, or a stored zip entry's data); what it holds beyond
  // `length` is left. Written at `at`: a zip entry's data, whose CRC-32 is computed beside its digests.
  const copy = (
    { from, start, to, at, length, progress }: NonNullable<Request['copy']>,
    hash: (chunk: Buffer) => void,
  ): Pick<Reply, 'length' | 'crc32'> => {
    const shared = progress && new BigInt64Array(progress);
    let [written, crc32] = [0, at === undefined ? undefined : 0];
    const read = chunks.read(from, start ?? 0, length, (chunk) => {
      hash(chunk);
      if (crc32 !== undefined) crc32 = zlib.crc32(chunk, crc32);
      if (to !== undefined) chunks.writeAll(to, chunk, at === undefined ? null : at + written);
      written += chunk.length;
      if (!shared) return;
      Atomics.store(shared, layout.written, BigInt(written));
      Atomics.add(shared, layout.changes, 1n);
      Atomics.notify(shared, layout.changes);
    });
    return { length: read, crc32 };
  };
  const digestsOf = (hashes: Crypto.Hash[], algorithms: readonly string[]) =>
    Object.fromEntries(hashes.map((each, i) => [algorithms[i], each.digest('hex')]));
  // every step of a file's copy on this thread, one request: the main thread's only part is the message
  const copyFile = (
    { from, start, length, to }: NonNullable<Request['copyFile']>,
    hash: (chunk: Buffer) => void,
  ) => {
    // a source swapped for a symlink or a FIFO since it was listed is refused
    const source = chunks.openRegular(from, { follow: false });
    const [file, entry] = 'zip' in to ? [null, to] : [to, null];
    const readBack = (file?.readBack ?? []).map((algorithm) => crypto.createHash(algorithm));
    let target: number | undefined;
    let copied: Pick<Reply, 'length' | 'crc32'>;
    try {
      target = entry ? fs.openSync(entry.zip, 'r+') : fs.openSync(file.path, 'wx+', 0o644);
      copied = copy({ from: source, start, to: target, at: entry?.at, length }, hash);
      // read through the open file written: what it holds, whatever became of its name meanwhile
      if (readBack.length > 0)
        chunks.read(target, 0, Infinity, (chunk) => readBack.forEach((each) => each.update(chunk)));
    } finally {
      fs.closeSync(source);
      if (target !== undefined) fs.closeSync(target);
    }
    if (file?.renameTo !== undefined) fs.renameSync(file.path, file.renameTo);
    return { ...copied, stored: digestsOf(readBack, file?.readBack ?? []) };
  };
  const run = ({ path, copy: copying, copyFile: copyingFile, algorithms, range }: Request): Reply => {
    const hashes = algorithms.map((algorithm) => crypto.createHash(algorithm));
    const hash = (chunk: Buffer) => hashes.forEach((each) => each.update(chunk));
    if (!copyingFile && !copying) chunks.readFile(path!, range, hash);
    const copied = copyingFile ? copyFile(copyingFile, hash) : copying && copy(copying, hash);
    return { family: 'file', id: 0, digests: digestsOf(hashes, algorithms), ...copied };
  };
  port.on('message', (message: Request | { family: 'stream' }) => {
    if (message.family !== 'file' || message.follow) return;
    const { id } = message;
    try {
      port.postMessage({ ...run(message), id } satisfies Reply);
    } catch (error) {
      const { message: text, code, syscall } = error as NodeJS.ErrnoException;
      port.postMessage({ family: 'file', id, error: { message: text, code, syscall } } satisfies Reply);
    }
  });
}

/**
 * The thread's other program, reading files back as they are written (ReadBack): it reads and hashes what the
 * writer says it has written, then waits for more without holding the thread (Atomics.waitAsync), so that the
 * thread goes on with other work meanwhile, the copy feeding the read-back included where there is one thread.
 * Once the writer has ended, it reads on to the file's end; a zip entry's data (from `start`), up to what was
 * written.
 */
function readBackOnThread({ port, crypto, chunks }: ThreadModules, layout: ProgressLayout): void {
  const [ENDED, ABANDONED] = [BigInt(layout.ended), BigInt(layout.abandoned)];
  // through the thread's one buffer, which the copy uses too: each read runs within one turn of the event
  // loop, and a copy on this thread runs whole within another
  const hashUpTo = (fd: number, position: number, end: number, hashes: Crypto.Hash[]) =>
    position +
    chunks.read(fd, position, end - position, (chunk) => hashes.forEach((hash) => hash.update(chunk)));
  const follow = async ({ fd, progress, start }: NonNullable<Request['follow']>, algorithms: string[]) => {
    const hashes = algorithms.map((algorithm) => crypto.createHash(algorithm));
    const shared = new BigInt64Array(progress);
    for (let position = start ?? 0; ;) {
      // read before the rest: a change made after it ends the wait below at once
      const changes = Atomics.load(shared, layout.changes);
      const state = Atomics.load(shared, layout.state);
      if (state === ABANDONED) throw new Error('the write was abandoned');
      const written = Number(Atomics.load(shared, layout.written));
      const end = start !== undefined ? start + written : state === ENDED ? Infinity : written;
      position = hashUpTo(fd, position, end, hashes);
      if (state === ENDED)
        return Object.fromEntries(hashes.map((hash, i) => [algorithms[i], hash.digest('hex')]));
      await Atomics.waitAsync(shared, layout.changes, changes).value;
    }
  };
  port.on('message', (message: Request | { family: 'stream' }) => {
    if (message.family !== 'file' || !message.follow) return;
    const { id } = message;
    follow(message.follow, message.algorithms).then(
      (digests) => port.postMessage({ family: 'file', id, digests } satisfies Reply),
      (error: NodeJS.ErrnoException) =>
        port.postMessage({
          family: 'file',
          id,
          error: { message: error.message, code: error.code, syscall: error.syscall },
        } satisfies Reply),
    );
  });
}

/** What a request to a hashing thread computed: its digests, and what a copyFile found. */
type Answer = Required<Pick<Reply, 'digests'>> & Pick<Reply, 'stored' | 'length' | 'crc32'>;

/** The files being hashed or copied on the hashing threads, by request id. */
class HashPool {
  private readonly pending = new Map<
    number,
    { thread: HashingThread; resolve: (answer: Answer) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;
  private turn = 0;

  /** The next thread in turn; another than `besides`, where there is another. */
  pick(besides?: HashingThread): HashingThread {
    const thread = hashingThreads.at(this.turn++);
    return thread === besides && hashingThreads.count > 1 ? hashingThreads.at(this.turn++) : thread;
  }

  /** Sends `request` (with an id of its own) to `thread`; what it computed. */
  run(request: Omit<Request, 'id' | 'family'>, thread = this.pick()): Promise<Answer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { thread, resolve, reject });
      thread.hold();
      thread.post<Request>({ ...request, family: 'file', id });
    });
  }

  reply({ id, digests, stored, length, crc32, error }: Reply, thread: HashingThread): void {
    const request = this.pending.get(id);
    if (!request) return;
    this.pending.delete(id);
    thread.release();
    if (digests) request.resolve({ digests, stored, length, crc32 });
    else
      request.reject(
        Object.assign(new Error(error?.message ?? 'hashing failed'), {
          code: error?.code,
          syscall: error?.syscall,
        }),
      );
  }

  /** A thread died: every request it had fails. */
  failed(error: Error, thread: HashingThread): void {
    for (const [id, request] of this.pending) {
      if (request.thread !== thread) continue;
      this.pending.delete(id);
      request.reject(error);
    }
  }
}

const pool = new HashPool();
hashingThreads.register('file', hashFilesOnThread, PROGRESS, pool);
// the same family: its replies go to the same pool
hashingThreads.register('file', readBackOnThread, PROGRESS, pool);

/** How many hashing threads there are; each costs some memory, and more than the cores gains nothing. */
export function setHashThreads(threads: number): void {
  hashingThreads.resize(threads);
}

/**
 * Hex digests of a file (or of `range` of it) for each algorithm, read once in 1 MiB chunks on a hashing
 * thread. Reading follows links: give a path the caller controls.
 */
export function hashFile(
  path: string,
  algorithms: readonly string[],
  range?: ByteRange,
): Promise<Record<string, string>> {
  return pool.run({ path, algorithms: [...algorithms], range }).then(({ digests }) => digests);
}

/**
 * A file read back and hashed on a hashing thread while it is being written, through the writer's own open
 * file (open for reading too), so that the check of what was stored runs beside the writing on another core
 * instead of after it (a big copy's: copyFile). The reader reads only what the writer says it has written (copySpread
 * says so chunk by chunk), and once the writer has ended, on to the file's end: its digests are of
 * the whole file as stored.
 */
export class ReadBack {
  /** the progress the writer shares with the reader (see PROGRESS) */
  readonly progress = new SharedArrayBuffer(PROGRESS.words * BigInt64Array.BYTES_PER_ELEMENT);
  /** the thread reading back: a copy is given another one, where there is another */
  readonly thread = pool.pick();
  private readonly digests: Promise<Record<string, string>>;

  /** `start`: the written bytes are a zip entry's data from there, read up to what was written */
  constructor(fd: number, algorithms: readonly string[], start?: number) {
    this.digests = pool
      .run({ follow: { fd, progress: this.progress, start }, algorithms: [...algorithms] }, this.thread)
      .then(({ digests }) => digests);
    // awaited by end(); an abandoned read-back's failure is expected
    this.digests.catch(() => undefined);
  }

  /** The writer has written the whole file: the digests of all the file holds, once read. */
  end(): Promise<Record<string, string>> {
    this.setState(PROGRESS.ended);
    return this.digests;
  }

  /** The write failed: resolves once the reader has stopped, so that the file may be closed. */
  async abandon(): Promise<void> {
    this.setState(PROGRESS.abandoned);
    await this.digests.catch(() => undefined);
  }

  private setState(state: number): void {
    const shared = new BigInt64Array(this.progress);
    Atomics.store(shared, PROGRESS.state, BigInt(state));
    Atomics.add(shared, PROGRESS.changes, 1n);
    Atomics.notify(shared, PROGRESS.changes);
  }
}

/** From this size, a copy is spread over two threads, its source digested by a read of its own (see copyFile). */
export const SEPARATE_SOURCE_DIGEST_FROM = 32 << 20;

/**
 * Copies `length` bytes (or fewer, where the file ends first) of the file at `from` (never through a symlink:
 * ELOOP), from `start` (a stored entry's data in a zip) or its start, into a new file or a zip entry, `target`,
 * on the hashing threads, in 1 MiB chunks of one reused buffer: the hex
 * digests of the bytes copied for each of `algorithms`, and of the file as stored, read back with
 * `target.readBack`, which is then renamed to `target.renameTo` if given. Below SEPARATE_SOURCE_DIGEST_FROM
 * (or with one thread, or nothing to read back) one thread does it all, the read-back after the copy, in one
 * request: a job copying many files keeps both threads busy with a file each, and its main thread sends one
 * message a file instead of waiting on the thread pool for each open, close and rename. From that size, the
 * copy is spread over two threads (copySpread). On failure the new file may be left at `target.path`.
 */
export async function copyFile(
  from: string,
  length: number,
  target: CopyTarget | EntryTarget,
  algorithms: readonly string[],
  start = 0,
): Promise<CopiedFile> {
  const spread = length >= SEPARATE_SOURCE_DIGEST_FROM && hashingThreads.count > 1;
  if (spread && 'zip' in target) return copyBigEntry({ path: from, start }, length, target, algorithms);
  if ('zip' in target || target.readBack.length === 0 || !spread) {
    const to = 'zip' in target ? { ...target } : { ...target, readBack: [...target.readBack] };
    const answer = await pool.run({ copyFile: { from, start, length, to }, algorithms: [...algorithms] });
    const copied = { copied: answer.digests, stored: answer.stored ?? {}, length: answer.length! };
    return answer.crc32 === undefined ? copied : { ...copied, crc32: answer.crc32 };
  }
  return copyBigFile({ path: from, start }, length, target, algorithms);
}

/**
 * copyFile into a zip entry from SEPARATE_SOURCE_DIGEST_FROM, where one thread would take the whole of a big
 * file's digests: the copying thread computes the CRC-32 and the costliest share of the digests, and the other
 * thread reads the entry back as it is written for the rest, so that every digest is of the bytes in the zip.
 */
async function copyBigEntry(
  from: { path: string; start: number },
  length: number,
  target: EntryTarget,
  algorithms: readonly string[],
): Promise<CopiedFile> {
  const [copierShare, readerShare = []] = shareOut(algorithms, 2);
  const { fd: source } = await openRegularFile(from.path);
  try {
    const zip = await open(target.zip, 'r+');
    const readBack = new ReadBack(zip.fd, readerShare, target.at);
    try {
      const copy = {
        from: source,
        start: from.start,
        to: zip.fd,
        at: target.at,
        length,
        progress: readBack.progress,
      };
      const copied = await pool.run({ copy, algorithms: copierShare }, pool.pick(readBack.thread));
      const rest = await readBack.end();
      return {
        copied: { ...copied.digests, ...rest },
        stored: {},
        length: copied.length!,
        crc32: copied.crc32,
      };
    } catch (error) {
      // the reader stops before the file it reads is closed
      await readBack.abandon();
      throw error;
    } finally {
      await zip.close();
    }
  } finally {
    await closeFd(source);
  }
}

/** copyFile from SEPARATE_SOURCE_DIGEST_FROM: both files opened here, for the two threads that share them. */
async function copyBigFile(
  from: { path: string; start: number },
  length: number,
  target: CopyTarget,
  algorithms: readonly string[],
): Promise<CopiedFile> {
  const { fd: source } = await openRegularFile(from.path);
  try {
    const stored = await open(target.path, 'wx+', 0o644);
    // the read-back reads through the same open file, so the file it reads is the one written
    const readBack = new ReadBack(stored.fd, target.readBack);
    let copied: CopiedFile;
    try {
      const spread = await copySpread(
        { fd: source, start: from.start },
        stored.fd,
        length,
        algorithms,
        readBack,
      );
      copied = { ...spread, stored: {} };
      copied.stored = await readBack.end();
    } catch (error) {
      // the reader stops before the file it reads is closed
      await readBack.abandon();
      throw error;
    } finally {
      await stored.close();
    }
    if (target.renameTo !== undefined) await rename(target.path, target.renameTo);
    return copied;
  } finally {
    await closeFd(source);
  }
}

/**
 * A big copy between open files, read back as it is written (ReadBack), spread over both threads so that the
 * copying thread only copies: most of a big copy's CPU is the kernel's copy into new page-cache pages, which
 * one thread at a time can do (ext4 holds the file's lock through a write: two threads writing one file at
 * once wait on each other). The source's digests come from a read of its own on the read-back's thread. A byte
 * that changed between the copy's read and the digest's fails fixity, as the stored file is read back too.
 */
async function copySpread(
  from: { fd: number; start: number },
  to: number,
  length: number,
  algorithms: readonly string[],
  readBack: ReadBack,
): Promise<Pick<CopiedFile, 'copied' | 'length'>> {
  const copier = pool.pick(readBack.thread);
  const source = { from: from.fd, start: from.start, length };
  const copying = pool.run({ copy: { ...source, to, progress: readBack.progress }, algorithms: [] }, copier);
  const digesting = pool.run({ copy: source, algorithms: [...algorithms] }, pool.pick(copier));
  // both have stopped before the caller may close the files, even where one failed
  const [copied, digested] = await Promise.allSettled([copying, digesting]);
  if (copied.status === 'rejected') throw copied.reason;
  if (digested.status === 'rejected') throw digested.reason;
  return { copied: digested.value.digests, length: copied.value.length! };
}
