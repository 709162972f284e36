import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readLocalFile } from '@app/common';
import { GIT_BLOB_SHA1, createStreamHasher } from '@app/fixity';
import type { IncomingFile } from '../connector';

/** A file's bytes on disk, waiting for the commit, with the checksums GitLab will report of them. */
export interface StagedBytes {
  /** absolute path of the staged copy */
  file: string;
  size: number;
  /** the git blob id GitLab's tree will give the file */
  blobId: string;
  sha256: string;
}

/**
 * Streams an incoming file to a new file in `dir`, hashing it on the way (git blob id and sha256): nothing
 * is held in memory whatever its size.
 */
export async function stageFile(dir: string, incoming: IncomingFile): Promise<StagedBytes> {
  const file = join(dir, `gitlab-${randomUUID()}`);
  // a git blob id covers the size, so it is computed for the size announced and checked against the bytes
  const hasher = createStreamHasher([GIT_BLOB_SHA1, 'sha256'], incoming.size);
  let size = 0;
  try {
    await pipeline(
      await incoming.open(),
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          await hasher.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(file, { flags: 'wx', mode: 0o600 }),
    );
    if (size !== incoming.size) throw new Error(`a file of ${incoming.size} bytes sent ${size}`);
  } catch (error) {
    hasher.drop();
    await rm(file, { force: true });
    throw error;
  }
  const digests = await hasher.digest();
  return { file, size, blobId: digests[GIT_BLOB_SHA1], sha256: digests.sha256 };
}

/** 3 × 2^18: a multiple of 3, so each chunk but the last encodes to base64 without padding. */
const BASE64_CHUNK = 3 << 18;

/** A staged file's bytes as base64, read in chunks. */
export async function* base64Of(file: string): AsyncGenerator<Buffer> {
  const stream: Readable = readLocalFile(file, { highWaterMark: BASE64_CHUNK });
  let carry = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 3);
    carry = Buffer.from(bytes.subarray(whole));
    if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'), 'ascii');
  }
  if (carry.length > 0) yield Buffer.from(carry.toString('base64'), 'ascii');
}

/** How long the base64 of `size` bytes is. */
export function base64Length(size: number): number {
  return 4 * Math.ceil(size / 3);
}
