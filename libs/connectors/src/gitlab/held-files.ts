import { Readable } from 'node:stream';
import { GIT_BLOB_SHA1 } from '@app/fixity';
import {
  lfsPointerBlobId,
  mayBeLfsPointer,
  parseLfsPointer,
  readPointerCandidate,
  type LfsPointer,
} from '../git-lfs';
import type { GitlabApi } from './api';

/**
 * A file as GitLab holds it at a ref, an LFS pointer resolved: its real size and checksums, and what it takes
 * to read it. GitLab's metadata (`HEAD .../files/:file_path`) describes the blob git holds, which for a file
 * stored in Git LFS is the pointer: its size and sha256 are the pointer's, so a blob of a pointer's size is
 * read to find out (docs/targets/gitlab.md#git-lfs).
 */
export interface HeldFile {
  /** the real content's size */
  size: number;
  /** the git blob id of the content; '' where git holds only an LFS pointer to it, or GitLab gave none */
  blobId: string;
  /** the real content's sha256 ('' where GitLab gave none) */
  sha256: string;
  /** the pointer git holds, for a file stored in Git LFS */
  lfs?: LfsPointer;
  /** the whole of a small blob read to see whether it was a pointer, to serve without asking again */
  bytes?: Buffer;
}

/** Where a file is: its project, path and the ref it is read at. */
export interface FilePlace {
  projectId: string;
  path: string;
  ref: string;
}

const GIT_SHA1 = /^[0-9a-f]{40}$/;

/** The file at a place, or null when there is none. */
export async function heldFile(api: GitlabApi, place: FilePlace): Promise<HeldFile | null> {
  const meta = await api.fileMeta(place.projectId, place.path, place.ref);
  if (!meta || !mayBeLfsPointer(meta.size)) return meta;
  const bytes = await readPointerCandidate(
    await api.rawFile(place.projectId, place.path, place.ref),
    api.name,
  );
  const pointer = parseLfsPointer(bytes);
  return pointer ? { size: pointer.size, blobId: '', sha256: pointer.oid, lfs: pointer } : { ...meta, bytes };
}

/** A held file's bytes: a small one as read, an LFS object's content (`lfs=true`), else the blob. */
export async function openHeld(
  api: GitlabApi,
  place: FilePlace,
  file: HeldFile,
  resourceId: string,
): Promise<Readable> {
  if (file.bytes) return Readable.from([file.bytes]);
  return api.rawFile(place.projectId, place.path, place.ref, { resourceId, lfs: file.lfs !== undefined });
}

/**
 * The checksums GitLab vouches for, of the real content: its sha256, and its git blob id where git holds the
 * content itself (not in a repository of SHA-256 object format, whose ids are no git-blob-sha1).
 */
export function heldChecksums(file: HeldFile): Record<string, string> {
  const checksums: Record<string, string> = {};
  if (GIT_SHA1.test(file.blobId)) checksums[GIT_BLOB_SHA1] = file.blobId;
  if (file.sha256) checksums.sha256 = file.sha256;
  return checksums;
}

/** Bytes of a known size, blob id and sha256, as a writer stages them. */
export interface KnownBytes {
  size: number;
  blobId: string;
  sha256: string;
}

/** Whether GitLab holds these bytes in `held`: the same blob, or an LFS pointer to the same content. */
export function holds(held: HeldFile, bytes: KnownBytes): boolean {
  if (held.lfs) return held.lfs.oid === bytes.sha256 && held.lfs.size === bytes.size;
  return held.blobId !== '' && held.blobId === bytes.blobId;
}

/**
 * Whether a tree entry's blob id stands for these bytes: their own blob, or the pointer GitLab commits in
 * their place when `.gitattributes` sends the path to LFS (`Lfs::FileTransformer`, `Gitlab::Git::LfsPointerFile`).
 */
export function isBlobOf(blobId: string, bytes: KnownBytes): boolean {
  return blobId === bytes.blobId || blobId === lfsPointerBlobId({ oid: bytes.sha256, size: bytes.size });
}
