import { checkOptions, isRecord } from '../option-rules';

export interface S3Options {
  /** the S3 API's base URL (the endpoint, as S3 tools call it); default AWS's regional one, `https://s3.<region>.amazonaws.com` */
  api_url?: string;
  /** the region requests are signed for; default `us-east-1` (what MinIO and Ceph take unless set otherwise) */
  region?: string;
  /** the one bucket whose top-level prefixes are the projects; absent: each bucket the key lists is a project */
  bucket?: string;
  /** the key prefix the target works below, in the bucket (or in every bucket); `/`-ended, default none */
  prefix?: string;
  /** bucket in the path (`<api_url>/<bucket>/<key>`) rather than in the host name; default false */
  path_style?: boolean;
  per_page?: number;
}

export const DEFAULT_REGION = 'us-east-1';
/**
 * The largest page of projects: a page of ours is one ListObjectsV2 call when it fits in one, and S3 answers
 * at most 1,000 keys a call (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html, MaxKeys).
 */
export const MAX_PAGE_SIZE = 1000;

/** Bucket names as S3 takes them (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html). */
export const BUCKET_NAME = /^(?!xn--)(?!.*-s3alias$)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function endpointOf(options: S3Options): string {
  return options.api_url ?? `https://s3.${options.region ?? DEFAULT_REGION}.amazonaws.com`;
}

/** The prefix as keys start with it: empty, or ending in `/`. */
export function keyPrefixOf(options: S3Options): string {
  const prefix = (options.prefix ?? '').replace(/^\/+/, '');
  return prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
}

/** Every problem with an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  const problems = checkOptions(options, {
    api_url: { kind: 'url' },
    region: { kind: 'text', pattern: /^[a-z0-9-]{1,64}$/, expected: 'a region name such as eu-central-1' },
    bucket: { kind: 'text', pattern: BUCKET_NAME, expected: 'a bucket name (S3 naming rules)' },
    prefix: {
      kind: 'text',
      pattern: /^(?!\/)(?!.*\/\/)[^\0\\]{1,512}$/,
      expected: 'a key prefix without a leading or doubled slash',
    },
    path_style: { kind: 'boolean' },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
  // each bucket would be a host of its own, and the signature goes only to the endpoint's
  if (isRecord(options) && options.bucket === undefined && options.path_style !== true)
    problems.push('options.path_style must be true when no bucket is given (each bucket is a project)');
  return problems;
}
