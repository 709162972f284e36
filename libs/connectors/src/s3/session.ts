import type { S3Api } from './api';

/**
 * Where the target's resources are: one bucket whose top-level prefixes (below `prefix`) are the projects,
 * or, without a bucket, each bucket the key lists a project, its files below `prefix`.
 */
export interface S3Layout {
  bucket?: string;
  /** empty, or ending in `/` */
  prefix: string;
}

/** What one user's session of an S3 target keeps, which each of its operations is given first. */
export interface S3Session {
  api: S3Api;
  layout: S3Layout;
  perPage: number;
}

/** Where a resource's keys are: its bucket, and its key (a container's ends in `/`, or is the bucket's prefix). */
export interface S3Place {
  bucket: string;
  key: string;
}

/** The bucket and key of the resource at `segments` (the project first), a container's key ending in `/`. */
export function placeOf(
  { bucket, prefix }: S3Layout,
  segments: readonly string[],
  kind: 'container' | 'item',
): S3Place {
  const [first, ...rest] = segments;
  const names = bucket === undefined ? rest : segments;
  const key = prefix + names.join('/') + (kind === 'container' && names.length > 0 ? '/' : '');
  return { bucket: bucket ?? first, key };
}
