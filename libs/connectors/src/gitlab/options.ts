import { checkOptions } from '../option-rules';

export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface GitlabOptions {
  /** the REST API's base URL, `https://gitlab.com/api/v4` unless a self-hosted GitLab is meant */
  api_url?: string;
  /** the visibility of the projects the connector makes */
  visibility?: Visibility;
  /** the page size of listings; GitLab takes at most 100 */
  per_page?: number;
  /** the file bytes one commit takes at most; larger writes are split over several commits */
  commit_batch_bytes?: number;
}

export const DEFAULT_API_URL = 'https://gitlab.com/api/v4';
/**
 * The commits API takes the files as base64 in one JSON body, which GitLab's Rails parses whole within its
 * request timeout (60 s on gitlab.com, gitlab-org/gitlab!43117); GitLab documents no size limit. A commit
 * therefore carries at most 20 MiB of files by default, about 27 MB of JSON.
 */
export const DEFAULT_COMMIT_BATCH_BYTES = 20 << 20;
/**
 * The most a commit may carry: its JSON (4/3 of the files, in base64) stays below the 250 MiB an omnibus
 * GitLab's nginx accepts (`client_max_body_size`); a single larger file still goes alone in its own commit.
 */
export const MAX_COMMIT_BATCH_BYTES = 180 << 20;
/** GitLab's largest `per_page`. */
export const MAX_PER_PAGE = 100;

/** Every problem of a targets-file entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    visibility: { kind: 'one of', values: VISIBILITIES },
    per_page: { kind: 'integer', min: 1, max: MAX_PER_PAGE },
    commit_batch_bytes: { kind: 'integer', min: 1, max: MAX_COMMIT_BATCH_BYTES },
  });
}
