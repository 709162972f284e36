import type { InvenioApi } from './api';

/** What one user's session of an InvenioRDM instance keeps, which each of its operations is given first. */
export interface InvenioSession {
  api: InvenioApi;
  perPage: number;
}
