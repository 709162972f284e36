import type { CollectionPage, CollectionQuery, ResourceSummary, SearchFilter } from '../connector';
import { ConnectorError } from '../connector-error';
import { mapLimited } from '../map-limited';
import type { GitHubApi, ListedRepositories } from './api';
import { repositorySummary } from './detail';
import type { GitHubRepository } from './entities';
import { parseResourceId } from './ids';
import { topicOf, withoutAccents } from './names';
import type { GitHubSession } from './session';

/** The user's listing is read 100 repositories a page when searched, four pages at a time. */
const SCANNED_PAGE_SIZE = 100;
const SCAN_CONCURRENCY = 4;
/** A search looks at the 10,000 most recently updated repositories of the listing at most. */
const MAX_SCANNED_PAGES = 100;
const NOTHING: ListedRepositories = { repositories: [], totalPages: 1 };
/** The user's own repositories, those shared with them and their organizations' (GitHub's default). */
const LISTING = 'user/repos';

/** One page of the user's repositories, or of those a search filter finds, newest first. */
export async function listResources(
  { api, perPage }: GitHubSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const search = query.search;
  if (search && search.filter !== 'author' && search.filter !== 'id') {
    const matches = matcher(search.filter, search.value);
    return matches ? searchListing(api, matches, query.page, perPage) : emptyPage(perPage);
  }
  const { repositories, totalPages } = await listed(api, query, perPage);
  return { resources: repositories.map(repositorySummary), totalPages: Math.max(1, totalPages), perPage };
}

function emptyPage(perPage: number): CollectionPage {
  return { resources: [], totalPages: 1, perPage };
}

function listed(
  api: GitHubApi,
  { search, page }: CollectionQuery,
  perPage: number,
): Promise<ListedRepositories> {
  if (search?.filter === 'id') return byId(api, search.value.trim());
  if (search?.filter === 'author')
    return listingPage(api, `users/${encodeURIComponent(search.value.trim())}/repos`, page, perPage);
  return listingPage(api, LISTING, page, perPage);
}

/** A page of a listing; past the last page, the `Link` header of page 1 tells how many there are. */
async function listingPage(
  api: GitHubApi,
  path: string,
  page: number,
  perPage: number,
): Promise<ListedRepositories> {
  const listing = await api.listRepositories(path, page, perPage);
  if (!listing) return NOTHING;
  if (listing.repositories.length > 0 || page === 1) return listing;
  return { repositories: [], totalPages: (await api.listRepositories(path, 1, perPage))?.totalPages ?? 1 };
}

/** The repository with that id, if the user may see it. */
async function byId(api: GitHubApi, value: string): Promise<ListedRepositories> {
  const address = parseResourceId(value);
  if (!address || address.path.length > 0) return NOTHING;
  let repository: GitHubRepository;
  try {
    repository = await api.repository(address.repositoryId, value);
  } catch (error) {
    if (error instanceof ConnectorError && error.status === 404) return NOTHING;
    throw error;
  }
  return { repositories: [repository], totalPages: 1 };
}

/**
 * Text as searches compare it: lower case, accents dropped, every run of other characters than letters and
 * digits one space (the `-` of `Coral-Reef-Survey` a space, as GitHub's search reads it).
 */
function searchable(text: string): string {
  return ` ${withoutAccents(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
}

/**
 * What a filter finds: `title` the value within the name, `general` within the name, description or a topic
 * (the fields GitHub's search reads without `in:`), `keywords` the topic the value makes. Null when the value
 * can find nothing.
 */
function matcher(filter: Exclude<SearchFilter, 'author' | 'id'>, value: string) {
  if (filter === 'keywords') {
    const topic = topicOf(value);
    return topic ? (repository: GitHubRepository) => (repository.topics ?? []).includes(topic) : null;
  }
  const wanted = searchable(value).trim();
  if (wanted === '') return null;
  const fields = (repository: GitHubRepository) =>
    filter === 'title'
      ? [repository.name]
      : [repository.name, repository.description ?? '', ...(repository.topics ?? [])];
  return (repository: GitHubRepository) =>
    fields(repository).some((field) => searchable(field).includes(wanted));
}

/**
 * A search is made within what the user's listing (`GET /user/repos`) shows, the listing read in full: a
 * search finds exactly the repositories the listing shows, those of the user's organizations and those shared
 * with the user included, which GitHub's search API (`user:`, `org:` qualifiers) cannot all name
 * (docs/targets/github.md#search). Only the matches of the page asked for are kept.
 */
async function searchListing(
  api: GitHubApi,
  matches: (repository: GitHubRepository) => boolean,
  page: number,
  perPage: number,
): Promise<CollectionPage> {
  const first = (page - 1) * perPage;
  const resources: ResourceSummary[] = [];
  let found = 0;
  const take = (repositories: readonly GitHubRepository[]) => {
    for (const repository of repositories.filter(matches)) {
      if (found >= first && found < first + perPage) resources.push(repositorySummary(repository));
      found++;
    }
  };
  const opening = await api.listRepositories(LISTING, 1, SCANNED_PAGE_SIZE);
  take(opening?.repositories ?? []);
  const pages = Math.min(opening?.totalPages ?? 1, MAX_SCANNED_PAGES);
  for (let start = 2; start <= pages; start += SCAN_CONCURRENCY) {
    const numbers = Array.from(
      { length: Math.min(SCAN_CONCURRENCY, pages - start + 1) },
      (_, n) => start + n,
    );
    const read = await mapLimited(numbers, SCAN_CONCURRENCY, (number) =>
      api.listRepositories(LISTING, number, SCANNED_PAGE_SIZE),
    );
    for (const listing of read) take(listing?.repositories ?? []);
  }
  return { resources, totalPages: Math.max(1, Math.ceil(found / perPage)), perPage };
}
