import type { WebdavApi } from './api';

/** What one user's session of a WebDAV server keeps, which each of its operations is given first. */
export interface WebdavSession {
  api: WebdavApi;
  perPage: number;
  /** the user's root of Nextcloud's chunked uploads, where the server has one */
  uploads?: URL;
  /** files larger than this go in chunks of this size, where `uploads` is given */
  chunkBytes: number;
}
