import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { hashFile, ReadBack } from '@app/fixity';
import type { IncomingFile } from './connector';

/**
 * Writes `file` into a new file at `path` on this machine: copied on a hashing thread where its source is on
 * this machine's disk (IncomingFile.copyInto: no chunk passes through the job's streams, so none is left for
 * the collector), else streamed. With `readBack` algorithms, the digests of the file as stored, read back from
 * it: a copy is read back while it is written, on another hashing thread; a streamed file after its last byte.
 */
export async function writeLocalFile(
  path: string,
  file: IncomingFile,
  readBack: readonly string[] = [],
): Promise<Record<string, string>> {
  if (!file.copyInto) {
    await pipeline(await file.open(), createWriteStream(path, { flags: 'wx', mode: 0o644 }));
    return readBack.length > 0 ? hashFile(path, readBack) : {};
  }
  // open for reading as well: the read-back reads through the same open file, so the file it reads is the one
  // written, whatever happens to its name meanwhile
  const target = await open(path, 'wx+', 0o644);
  const reader = readBack.length > 0 ? new ReadBack(target.fd, readBack) : undefined;
  try {
    await file.copyInto(target.fd, reader);
    return (await reader?.end()) ?? {};
  } catch (error) {
    // the reader stops before the file it reads is closed
    await reader?.abandon();
    throw error;
  } finally {
    await target.close();
  }
}
