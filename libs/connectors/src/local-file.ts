import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { hashFile } from '@app/fixity';
import type { IncomingFile } from './connector';

/**
 * Writes `file` into a new file at `path` on this machine: copied on a hashing thread where its source is on
 * this machine's disk (IncomingFile.copyInto: no chunk passes through the job's streams, so none is left for
 * the collector), else streamed. With `readBack` algorithms, the digests of the file as stored, read back from
 * it once written (by the copying thread, for a copy). Renamed to `renameTo`, if given, once complete and read
 * back.
 */
export async function writeLocalFile(
  path: string,
  file: IncomingFile,
  readBack: readonly string[] = [],
  renameTo?: string,
): Promise<Record<string, string>> {
  if (file.copyInto) return file.copyInto({ path, readBack, renameTo });
  await pipeline(await file.open(), createWriteStream(path, { flags: 'wx', mode: 0o644 }));
  const stored = readBack.length > 0 ? await hashFile(path, readBack) : {};
  if (renameTo !== undefined) await rename(path, renameTo);
  return stored;
}
