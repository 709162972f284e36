import type { DataverseApi } from './api';
import type { DataverseUser } from './entities';

/** What one user's session of a Dataverse installation keeps, which each of its operations is given first. */
export interface DataverseSession {
  api: DataverseApi;
  /** the token's user: the author and contact of the datasets the service makes */
  account: DataverseUser;
  perPage: number;
  /** the alias of the collection where new datasets go */
  collection: string;
}
