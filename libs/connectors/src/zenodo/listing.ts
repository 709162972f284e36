import type { CollectionPage, CollectionQuery, SearchFilter } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { lookaheadPage } from '../lookahead-page';
import { lucenePhrase } from '../lucene-phrase';
import type { ZenodoApi } from './api';
import { depositionSummary } from './detail';
import { parseId } from './ids';
import { readDeposition } from './published';
import type { ZenodoSession } from './session';

/** The `q` of a search filter (https://developers.zenodo.org/#list: Elasticsearch query-string syntax). */
function searchQuery(filter: Exclude<SearchFilter, 'id'>, value: string): string {
  switch (filter) {
    case 'general':
      return lucenePhrase(value);
    case 'title':
      return `title:${lucenePhrase(value)}`;
    case 'keywords':
      return `keywords:${lucenePhrase(value)}`;
    case 'author':
      throw new ConnectorError(400, 'Zenodo depositions are searched by general, title, id or keywords.');
  }
}

/** The deposition an id search names, when the user may see it: one of theirs, or anyone's published record. */
async function depositionById(
  api: ZenodoApi,
  id: string,
  perPage: number,
  page: number,
): Promise<CollectionPage> {
  const parsed = parseId(id);
  const found =
    parsed?.kind === 'deposition' ? await foundOrNull(readDeposition(api, parsed.deposition, id)) : null;
  return {
    resources: found && page === 1 ? [depositionSummary(found.deposition)] : [],
    totalPages: 1,
    perPage,
  };
}

export async function listResources(
  { api, perPage }: ZenodoSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const search = query.search;
  if (search?.filter === 'id') return depositionById(api, search.value.trim(), perPage, query.page);
  const q = search ? searchQuery(search.filter, search.value) : undefined;
  // newest first; Zenodo answers a page as a bare array, without a total or paging links
  const fetch = (page: number, size: number) => api.depositions({ page, size, q });
  return lookaheadPage(fetch, depositionSummary, perPage, query.page);
}
