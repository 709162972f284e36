import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createInterface } from 'node:readline';

/** Why an append came too late (no path: a job's failure message must not show one). */
const LATE_LINE = 'the lines file was closed before this line';

/** Lines are handed to the file in batches of about this many characters. */
const BATCH_CHARS = 1 << 16;

/**
 * A text file written one line at a time, each line made of one record by `encode`. Lines are handed to the
 * file in batches: a write per line (one a file of a job, several files at once) cost each a round trip to
 * the thread pool. Appending waits while the file is behind, so that lines do not pile up in memory; what the
 * file holds is complete only once close() has resolved.
 */
export class LinesWriter<T> {
  private readonly output: WriteStream;
  /** why the file can't be written (a full disk); kept so that it fails the next append, not the process */
  private failure: Error | null = null;
  /** lines not yet handed to the file */
  private batch: string[] = [];
  private batchChars = 0;

  constructor(
    path: string,
    private readonly encode: (record: T) => string,
  ) {
    this.output = createWriteStream(path);
    this.output.on('error', (error) => (this.failure ??= error));
  }

  /** Fails once the file failed or was discarded (a line that comes too late), never waits for ever. */
  async append(record: T): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.output.destroyed) throw new Error(LATE_LINE);
    const line = `${this.encode(record)}\n`;
    this.batch.push(line);
    this.batchChars += line.length;
    if (this.batchChars >= BATCH_CHARS && !this.output.write(this.takeBatch())) await drained(this.output);
  }

  /** Resolves once every line is on disk. */
  async close(): Promise<void> {
    this.output.end(this.takeBatch());
    await finished(this.output);
  }

  /** Closes the file after a failure, leaving its removal to the caller. */
  async discard(): Promise<void> {
    this.takeBatch();
    this.output.destroy();
    await finished(this.output).catch(() => undefined);
  }

  private takeBatch(): string {
    const text = this.batch.join('');
    this.batch = [];
    this.batchChars = 0;
    return text;
  }
}

/**
 * Resolves when `stream` drains; rejects when it is closed first: a destroyed stream never emits 'drain', so
 * waiting for that alone would wait for ever.
 */
function drained(stream: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(stream.errored ?? new Error(LATE_LINE));
    stream.on('drain', onDrain);
    stream.on('close', onClose);
  });
}

/**
 * A list too long to hold in memory (one record per file of a bag that may hold 100,000), kept on disk as
 * one JSON text per line. JSON escapes line breaks inside strings, so a line is always one record.
 */
export class JsonLinesWriter<T> extends LinesWriter<T> {
  constructor(path: string) {
    super(path, (record) => JSON.stringify(record));
  }
}

/** The records of a file JsonLinesWriter wrote, one at a time. */
export async function* readJsonLines<T>(path: string): AsyncIterable<T> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as T;
}

/** A list JsonLinesWriter wrote (and closed), standing in for an array in a value given to stringifySpilled. */
export class SpilledList<T> {
  /** never set: ties a list to its records' type, so that a list of one kind can't pass for another */
  declare private readonly record?: T;

  constructor(readonly path: string) {}
}

/** Text is handed on in pieces of about this size rather than one piece per record. */
const PIECE_CHARS = 1 << 16;

/**
 * The text of `JSON.stringify(value, null, 2)` with each SpilledList in `value` written as the array of its
 * records, made a piece at a time so that no list is ever in memory whole.
 */
export async function* stringifySpilled(value: unknown): AsyncIterable<string> {
  // each list is first written as a placeholder string no value can hold by chance, then replaced
  const nonce = randomUUID();
  const lists: SpilledList<unknown>[] = [];
  const text = JSON.stringify(
    value,
    (_key, member: unknown) =>
      member instanceof SpilledList ? `${nonce}:${lists.push(member) - 1}` : member,
    2,
  );
  let from = 0;
  for (const placeholder of text.matchAll(new RegExp(`"${nonce}:(\\d+)"`, 'g'))) {
    const at = placeholder.index;
    yield text.slice(from, at);
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
    yield* stringifyList(lists[Number(placeholder[1])].path, /^ */.exec(line)?.[0] ?? '');
    from = at + placeholder[0].length;
  }
  yield text.slice(from);
}

/** A spilled list as JSON.stringify(list, null, 2) writes it on a line indented by `indent`. */
async function* stringifyList(path: string, indent: string): AsyncIterable<string> {
  const inner = `\n${indent}  `;
  let piece = '';
  let empty = true;
  for await (const record of readJsonLines(path)) {
    // JSON text holds no raw line break but between its members, so indenting after each one is exact
    piece += `${empty ? '[' : ','}${inner}${JSON.stringify(record, null, 2).replaceAll('\n', inner)}`;
    empty = false;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  yield empty ? '[]' : `${piece}\n${indent}]`;
}
