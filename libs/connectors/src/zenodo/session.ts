import type { ZenodoApi } from './api';

/** What one user's session of Zenodo keeps, which each of its operations is given first. */
export interface ZenodoSession {
  api: ZenodoApi;
  perPage: number;
  /** publish a deposition made for a job once the job's files are in */
  publish: boolean;
  /** the `upload_type` of new depositions */
  uploadType: string;
}
