import { digestStream } from '@app/fixity';
import type { IncomingFile } from './connector';

/**
 * The checksum (lower-case hex) of an incoming file: the one its source vouches for (IncomingFile.knownHashes),
 * else computed by reading the file once from its start.
 */
export async function incomingDigest(file: IncomingFile, algorithm: string): Promise<string> {
  const known = (await file.knownHashes?.([algorithm]))?.[algorithm];
  if (known) return known;
  return (await digestStream(await file.open(), [algorithm], file.size))[algorithm];
}
