import type { CollectionPage, ResourceSummary } from './connector';

/** One page of an upstream listing that answers bare arrays, without a total or paging links. */
export type PageFetcher<T> = (page: number, pageSize: number) => Promise<T[]>;

/**
 * Page `page` of a listing whose upstream tells no total: whether more pages follow is learnt by asking for
 * the one entry after this page (page `page * perPage + 1` of size 1), so `totalPages` is this page, or the
 * next one when more exist (never read further).
 */
export async function lookaheadPage<T>(
  fetch: PageFetcher<T>,
  summary: (entry: T) => ResourceSummary,
  perPage: number,
  page: number,
): Promise<CollectionPage> {
  const entries = await fetch(page, perPage);
  let totalPages = entries.length > 0 ? page : Math.max(1, page - 1);
  if (entries.length >= perPage) {
    const following = await fetch(page * perPage + 1, 1);
    if (following.length > 0) totalPages = page + 1;
  }
  return { resources: entries.map(summary), totalPages, perPage };
}
