import type { CollectionPage, CollectionQuery, ResourceSummary, SearchFilter } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { lucenePhrase } from '../lucene-phrase';
import type { DataverseApi } from './api';
import { datasetTitle, type MyDataAnswer, type MyDataCard } from './entities';
import { datasetSummary } from './detail';
import type { DataverseSession } from './session';

/** The page size of mydata/retrieve: fixed by Dataverse (SearchConstants.NUM_SOLR_DOCS_TO_RETRIEVE). */
const MYDATA_PAGE_SIZE = 10;
/** Characters with a meaning in Solr's query syntax, escaped in a term. */
const SOLR_SPECIAL = /[+\-&|!(){}[\]^"~*?:\\/]/g;

/**
 * The Solr query of a search filter, in the fields Dataverse indexes for datasets (SearchFields in
 * IQSS/dataverse: `title`, `authorName`, `keywordValue`). An author is found by every word of the name, in any
 * order, as Dataverse names authors "Last, First".
 */
function searchTerm(filter: Exclude<SearchFilter, 'id'>, value: string): string {
  switch (filter) {
    case 'general':
      return lucenePhrase(value);
    case 'title':
      return `title:${lucenePhrase(value)}`;
    case 'keywords':
      return `keywordValue:${lucenePhrase(value)}`;
    case 'author': {
      const words = value.split(/[\s,]+/).filter((word) => word !== '');
      if (words.length === 0) throw new ConnectorError(400, 'An author search needs a name.');
      return `authorName:(${words.map((word) => word.replace(SOLR_SPECIAL, '\\$&')).join(' AND ')})`;
    }
  }
}

/** The cards of a page of mydata/retrieve, and how many there are in all. */
async function myDataPage(
  api: DataverseApi,
  page: number,
  term?: string,
): Promise<{ cards: MyDataCard[]; total: number }> {
  const answer: MyDataAnswer = await api.myData(page, term);
  if (!answer.success) {
    // before 6.11 an empty result was a failure of its own ("Sorry, no results were found.")
    if (/no results/i.test(answer.error_message ?? '')) return { cards: [], total: 0 };
    throw new ConnectorError(
      502,
      `Dataverse could not list the user's datasets: ${answer.error_message ?? 'no reason given'}.`,
    );
  }
  return { cards: answer.data?.items ?? [], total: Number(answer.data?.total_count ?? 0) };
}

/**
 * Page `page` of `perPage` of the user's datasets: the stretch of mydata/retrieve's cards it covers, read from
 * the pages of ten that hold it. A dataset with a published version and a draft has a card for each; the
 * second card met is left out.
 */
async function datasetsPage(
  api: DataverseApi,
  page: number,
  perPage: number,
  term?: string,
): Promise<CollectionPage> {
  const start = (page - 1) * perPage;
  const first = Math.floor(start / MYDATA_PAGE_SIZE) + 1;
  const last = Math.floor((start + perPage - 1) / MYDATA_PAGE_SIZE) + 1;
  const read = await myDataPage(api, first, term);
  const total = read.total;
  let cards = read.cards;
  for (let next = first + 1; next <= last && (next - 1) * MYDATA_PAGE_SIZE < total; next++)
    cards = [...cards, ...(await myDataPage(api, next, term)).cards];
  const offset = start - (first - 1) * MYDATA_PAGE_SIZE;
  const seen = new Set<number>();
  const resources: ResourceSummary[] = [];
  for (const card of cards.slice(offset, offset + perPage)) {
    if (card.type !== 'dataset' || seen.has(card.entity_id)) continue;
    seen.add(card.entity_id);
    resources.push(datasetSummary(card.entity_id, card.name));
  }
  return { resources, totalPages: Math.max(1, Math.ceil(total / perPage)), perPage };
}

/**
 * The dataset an id search names, by its database id or its persistent id (`doi:...`, `hdl:...`), when the
 * user may see it: theirs, or anyone's published dataset.
 */
async function datasetById(
  api: DataverseApi,
  value: string,
  page: number,
  perPage: number,
): Promise<CollectionPage> {
  const id = value.trim();
  const read = /^[1-9][0-9]{0,18}$/.test(id)
    ? api.version(id, id)
    : /^[a-z]+:\S+$/i.test(id)
      ? api.versionByPersistentId(id)
      : null;
  const version = read ? await foundOrNull(read) : null;
  const found = version && version.versionState !== 'DEACCESSIONED' && page === 1;
  return {
    resources: found ? [datasetSummary(version.datasetId, datasetTitle(version))] : [],
    totalPages: 1,
    perPage,
  };
}

/** The user's datasets, newest first, or those a search filter finds among them (mydata/retrieve). */
export async function listResources(
  { api, perPage }: DataverseSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const search = query.search;
  if (search?.filter === 'id') return datasetById(api, search.value, query.page, perPage);
  const term = search ? searchTerm(search.filter, search.value) : undefined;
  return datasetsPage(api, query.page, perPage, term);
}

/** Every title of the user's datasets that a title search for `title` finds, page after page. */
export async function titlesLike(api: DataverseApi, title: string): Promise<Set<string>> {
  const titles = new Set<string>();
  const term = searchTerm('title', title);
  for (let page = 1; ; page++) {
    const { cards, total } = await myDataPage(api, page, term);
    for (const card of cards) titles.add(card.name);
    if (cards.length === 0 || page * MYDATA_PAGE_SIZE >= total) return titles;
  }
}
