import type { CollectionPage, CollectionQuery } from '../connector';
import { ConnectorError } from '../connector-error';
import type { CurateNdApi, ItemsQuery } from './api';
import { summarizeRecord, summarizeResult } from './detail';
import { firstText, isWork, type Pagination } from './entities';
import { upstreamId } from './ids';
import type { CurateNdSession } from './session';

/** Newest first: Api::QueryBuilder::SORT_OPTIONS maps this to Solr's system_modified_dtsi desc. */
const NEWEST_FIRST = 'modify_date desc';

/**
 * The query of a listing: the user's own works (`editor=self`), or a search over every work the token may
 * read, as CurateND's own search does: `general` is Blacklight's query over all text fields (`q`), `title` the
 * API's title filter (`title`, a phrase), or on a CurateND without it Blacklight's query over the title search
 * field (`q` as a phrase, `search_field=title`: CatalogController's `title` field).
 */
async function itemsQuery(
  search: CollectionQuery['search'],
  knowsTitleFilter: () => Promise<boolean>,
): Promise<ItemsQuery | null> {
  if (!search) return { editor: 'self' };
  switch (search.filter) {
    case 'general':
      return search.value.trim() === '' ? null : { q: search.value };
    case 'title': {
      const phrase = titlePhrase(search.value);
      if (phrase === '') return null;
      return (await knowsTitleFilter()) ? { title: phrase } : { q: `"${phrase}"`, search_field: 'title' };
    }
    default:
      throw new ConnectorError(400, `CurateND cannot be searched by ${search.filter}.`);
  }
}

/**
 * The API splits a filter value at `,` (any of) and `^` (all of) and quotes each part for Solr
 * (Api::QueryBuilder#do_search_for); a title is one phrase, so those characters and quotes, which the
 * tokenised title field ignores anyway, become spaces.
 */
function titlePhrase(value: string): string {
  return value
    .replace(/[,^"\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** How many pages the results fill: from the counts, else from the number in the last page's link. */
function totalPages(pagination: Pagination, perPage: number): number {
  const total = Number(pagination.totalResults);
  if (Number.isSafeInteger(total) && total >= 0) return Math.max(1, Math.ceil(total / perPage));
  const last = Number(/[?&]page=(\d+)/.exec(firstText(pagination.lastPage) ?? '')?.[1] ?? '1');
  return Number.isSafeInteger(last) && last > 0 ? last : 1;
}

/** The one work or file with this id, when the token may read it. */
async function findById(
  api: CurateNdApi,
  value: string,
  page: number,
  perPage: number,
): Promise<CollectionPage> {
  const id = upstreamId(value.trim());
  const none = nothingFound(perPage);
  if (id === null) return none;
  try {
    const summary = summarizeRecord(await api.record(id));
    return summary && page === 1 ? { ...none, resources: [summary] } : none;
  } catch (error) {
    if (error instanceof ConnectorError && (error.status === 403 || error.status === 404)) return none;
    throw error;
  }
}

function nothingFound(perPage: number): CollectionPage {
  return { resources: [], totalPages: 1, perPage };
}

/** Page `query.page` of ours is CurateND's page of that number, with `rows` our page size. */
export async function listResources(
  { api, perPage: rows, knowsTitleFilter }: CurateNdSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  if (query.search?.filter === 'id') return findById(api, query.search.value, query.page, rows);
  const filter = await itemsQuery(query.search, knowsTitleFilter);
  if (filter === null) return nothingFound(rows);
  const answer = await api.search({ ...filter, page: query.page, rows, sort: NEWEST_FIRST });
  const perPage = Number(answer.pagination.itemsPerPage);
  const pageSize = Number.isSafeInteger(perPage) && perPage > 0 ? perPage : rows;
  return {
    resources: answer.results.filter(isWork).map(summarizeResult),
    totalPages: totalPages(answer.pagination, pageSize),
    perPage: pageSize,
  };
}
