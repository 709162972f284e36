import type { FigshareApi } from './api';

/** What one user's session of FigShare keeps, which each of its operations is given first. */
export interface FigshareSession {
  api: FigshareApi;
  perPage: number;
}
