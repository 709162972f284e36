import type { OsfApi } from './api';
import type { OsfAccount, OsfNode } from './entities';

/** What one user's session of OSF keeps, which each of its operations is given first. */
export interface OsfSession {
  /** OSF's API and its file service, with the user's token */
  api: OsfApi;
  account: OsfAccount;
  /** the page size asked of OSF for the collection */
  perPage: number;
  /** whether new projects are public */
  publicProjects: boolean;
  /**
   * The projects this session made, as OSF answered their creation: a writer into one starts from that
   * answer instead of asking for the node again.
   */
  made: Map<string, OsfNode>;
}
