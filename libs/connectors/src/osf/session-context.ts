import type { OsfApi } from './api';
import type { WaterButler } from './waterbutler';

/** What every part of a session works with: the user's view of OSF and of its file service. */
export interface OsfSessionContext {
  api: OsfApi;
  files: WaterButler;
  user: {
    id: string;
    fullName: string;
    /** the user's nodes (the `nodes` relationship of `users/me/`) */
    nodesUrl: string;
  };
  /** the page size asked of OSF for the collection */
  perPage: number;
  /** whether new projects are public */
  publicProjects: boolean;
}
