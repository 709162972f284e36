import { createStreamHasher } from '@app/fixity';
import type { IncomingFile } from './connector';

/**
 * The checksum (lower-case hex) of an incoming file: the one its source vouches for (IncomingFile.knownHashes),
 * else computed by reading the file once from its start.
 */
export async function incomingDigest(file: IncomingFile, algorithm: string): Promise<string> {
  const known = (await file.knownHashes?.([algorithm]))?.[algorithm];
  if (known) return known;
  const hasher = createStreamHasher([algorithm], file.size);
  try {
    for await (const chunk of await file.open()) await hasher.update(chunk as Buffer);
  } catch (error) {
    hasher.drop();
    throw error;
  }
  return (await hasher.digest())[algorithm];
}
