import type { ZenodoApi } from './api';

/** What the parts of a Zenodo session share. */
export interface ZenodoSessionContext {
  api: ZenodoApi;
  /** how the user is named: Zenodo's API tells only the owner's number (a deposition's `owner`) */
  username: string;
  perPage: number;
  /** publish a deposition made for a job once the job's files are in */
  publish: boolean;
  /** the `upload_type` of new depositions */
  uploadType: string;
}
