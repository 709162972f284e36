import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ConnectorError } from './connector-error';

/**
 * Git LFS pointers (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md#the-pointer). A file stored in
 * LFS is kept in git as a small text file that names the real content by its sha256 and size; the content
 * itself is an LFS object, fetched apart from git. A connector that served the pointer as the file would hand
 * out the wrong bytes under a checksum that agrees with them, so GitHub's and GitLab's connectors read every
 * blob that may be a pointer, and serve a pointer's object with its oid as the file's sha256.
 */
export interface LfsPointer {
  /** the sha256 of the real content, lower-case hex */
  oid: string;
  /** the real content's size in bytes */
  size: number;
}

/**
 * Every pointer this service resolves is the spec's one encoding of `version`, `oid` and `size` (what git-lfs
 * and GitLab write), 125 to 141 bytes long; GitLab itself takes a blob for a pointer only between 120 and 200
 * bytes (`Gitlab::Git::Blob::LFS_POINTER_MIN_SIZE`/`MAX_SIZE`). Blobs of other sizes are never read to find out.
 */
const POINTER_SIZES = { min: 120, max: 200 };
/** The spec's version URL, and the one pre-release git-lfs wrote, which git-lfs still reads. */
const VERSIONS = ['https://git-lfs.github.com/spec/v1', 'https://hawser.github.com/spec/v1'];
const POINTER = /^version (\S+)\noid sha256:([0-9a-f]{64})\nsize (0|[1-9][0-9]{0,15})\n$/;

/** Whether a blob of `size` bytes may be a pointer, and so is worth reading to find out. */
export function mayBeLfsPointer(size: number): boolean {
  return size >= POINTER_SIZES.min && size <= POINTER_SIZES.max;
}

/**
 * The pointer a blob's bytes are, or null for anything else. Only the canonical encoding counts: a pointer
 * with extension keys (`ext-0-...`) names content that extensions must still transform, which this service
 * cannot do, so such a blob is served as it is in git.
 */
export function parseLfsPointer(bytes: Buffer): LfsPointer | null {
  const match = POINTER.exec(bytes.toString('latin1'));
  if (!match || !VERSIONS.includes(match[1])) return null;
  const size = Number(match[3]);
  return Number.isSafeInteger(size) ? { oid: match[2], size } : null;
}

/** The spec's one encoding of a pointer, as git-lfs and GitLab (`Gitlab::Git::LfsPointerFile`) write it. */
export function lfsPointerText(pointer: LfsPointer): string {
  return `version ${VERSIONS[0]}\noid sha256:${pointer.oid}\nsize ${pointer.size}\n`;
}

/** The git blob id of a pointer's canonical encoding: what a tree lists for a file stored in LFS. */
export function lfsPointerBlobId(pointer: LfsPointer): string {
  const text = Buffer.from(lfsPointerText(pointer));
  return createHash('sha1').update(`blob ${text.length}\0`).update(text).digest('hex');
}

/** The bytes of a blob that may be a pointer, refusing more than a pointer can be. */
export async function readPointerCandidate(stream: Readable, upstream: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > POINTER_SIZES.max) {
      stream.destroy();
      throw new ConnectorError(502, `${upstream} sent more bytes of a file than its size says.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
