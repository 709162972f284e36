import { createStreamHasher } from '@app/fixity';
import type { IncomingFile } from './connector';

/** The checksum (lower-case hex) of an incoming file, read once from its start. */
export async function incomingDigest(file: IncomingFile, algorithm: string): Promise<string> {
  const hasher = createStreamHasher([algorithm], file.size);
  try {
    for await (const chunk of await file.open()) await hasher.update(chunk as Buffer);
  } catch (error) {
    hasher.drop();
    throw error;
  }
  return (await hasher.digest())[algorithm];
}
