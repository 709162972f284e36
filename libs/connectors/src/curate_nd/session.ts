import type { CurateNdApi } from './api';

/** What one user's session of CurateND keeps, which each of its operations is given first. */
export interface CurateNdSession {
  api: CurateNdApi;
  /** results per page of a listing (CurateND's `rows`) */
  perPage: number;
  /** whether this CurateND filters by title, asked once for the target */
  knowsTitleFilter: () => Promise<boolean>;
}
