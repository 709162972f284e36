import type { FigshareApi } from './api';

/** What the parts of a FigShare session share. */
export interface FigshareSessionContext {
  api: FigshareApi;
  username: string;
  perPage: number;
}
