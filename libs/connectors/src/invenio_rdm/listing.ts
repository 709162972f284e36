import type { CollectionPage, CollectionQuery, SearchFilter } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { lucenePhrase } from '../lucene-phrase';
import { recordSummary } from './detail';
import { totalOf } from './entities';
import { parseId } from './ids';
import { readRecord } from './records';
import type { InvenioSession } from './session';

/**
 * The `q` of a search filter: Elasticsearch's query string over the record's fields
 * (https://inveniordm.docs.cern.ch/reference/rest_api_requests/#search; field names from
 * https://inveniordm.docs.cern.ch/reference/metadata/).
 */
function searchQuery(filter: Exclude<SearchFilter, 'id'>, value: string): string {
  switch (filter) {
    case 'general':
      return lucenePhrase(value);
    case 'title':
      return `metadata.title:${lucenePhrase(value)}`;
    case 'author':
      // the search's author is the session's user, whom InvenioRDM names only through a record they own
      throw new ConnectorError(400, 'InvenioRDM records are searched by general, title, id or keywords.');
    case 'keywords':
      return `metadata.subjects.subject:${lucenePhrase(value)}`;
  }
}

/** The record an id search names, when the user may see it: one of theirs, or anyone's public record. */
async function recordById(session: InvenioSession, id: string, page: number): Promise<CollectionPage> {
  const parsed = parseId(id);
  const found =
    parsed?.kind === 'record' ? await foundOrNull(readRecord(session.api, parsed.record, id)) : null;
  return {
    resources: found && page === 1 ? [recordSummary(found.record)] : [],
    totalPages: 1,
    perPage: session.perPage,
  };
}

/** The user's records and drafts, newest first, a page of theirs for a page of ours (the answer gives the total). */
export async function listResources(
  session: InvenioSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const search = query.search;
  if (search?.filter === 'id') return recordById(session, search.value.trim(), query.page);
  const q = search ? searchQuery(search.filter, search.value) : undefined;
  const found = await session.api.userRecords({ page: query.page, size: session.perPage, q });
  return {
    resources: found.hits.hits.map(recordSummary),
    totalPages: Math.max(1, Math.ceil(totalOf(found) / session.perPage)),
    perPage: session.perPage,
  };
}
