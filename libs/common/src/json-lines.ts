import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createInterface } from 'node:readline';

/**
 * A list too long to hold in memory (one record per file of a bag that may hold 100,000), kept on disk as
 * one JSON text per line. JSON escapes line breaks inside strings, so a line is always one record.
 */
export class JsonLinesWriter<T> {
  private readonly output: WriteStream;

  constructor(path: string) {
    this.output = createWriteStream(path);
  }

  /** Waits while the file is behind, so that records do not pile up in memory. */
  async append(record: T): Promise<void> {
    if (!this.output.write(`${JSON.stringify(record)}\n`)) await once(this.output, 'drain');
  }

  /** Resolves once every record is on disk. */
  async close(): Promise<void> {
    this.output.end();
    await finished(this.output);
  }

  /** Closes the file after a failure, leaving its removal to the caller. */
  async discard(): Promise<void> {
    this.output.destroy();
    await finished(this.output).catch(() => undefined);
  }
}

/** The records of a file JsonLinesWriter wrote, one at a time. */
export async function* readJsonLines<T>(path: string): AsyncIterable<T> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as T;
}
