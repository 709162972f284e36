import type { CollectionPage, CollectionQuery } from '../connector';
import { ConnectorError } from '../connector-error';
import type { GitHubApi, GitHubRepository, ListedRepositories } from './github-api';
import { parseResourceId } from './ids';
import { topicOf } from './names';
import { repositorySummary } from './resources';

/** GitHub's search serves the first 1,000 results of a query (https://docs.github.com/en/rest/search/search#about-search). */
const SEARCH_RESULTS = 1000;
const NOTHING: ListedRepositories = { repositories: [], totalPages: 1 };

/** One page of the user's repositories, or of those a search filter finds, newest first. */
export async function listResources(
  api: GitHubApi,
  login: string,
  query: CollectionQuery,
  perPage: number,
): Promise<CollectionPage> {
  const { repositories, totalPages } = await findRepositories(api, login, query, perPage);
  return { resources: repositories.map(repositorySummary), totalPages: Math.max(1, totalPages), perPage };
}

function findRepositories(
  api: GitHubApi,
  login: string,
  { search, page }: CollectionQuery,
  perPage: number,
): Promise<ListedRepositories> {
  if (!search) return listed(api, 'user/repos', page, perPage);
  const value = search.value.trim();
  // the value is one quoted phrase, so that nothing in it reads as a qualifier (another `user:`)
  const phrase = `"${value.replace(/["\\]/g, ' ').trim()}"`;
  const topic = topicOf(value);
  // the user's own repositories, forks included (a search leaves them out without `fork:true`:
  // https://docs.github.com/en/search-github/searching-on-github/searching-in-forks)
  const own = `user:${login} fork:true`;
  if (phrase === '""') return Promise.resolve(NOTHING);
  switch (search.filter) {
    case 'author':
      return listed(api, `users/${encodeURIComponent(value)}/repos`, page, perPage);
    case 'id':
      return byId(api, value);
    case 'title':
      return searched(api, `${phrase} in:name ${own}`, page, perPage);
    case 'general':
      return searched(api, `${phrase} ${own}`, page, perPage);
    case 'keywords':
      return topic ? searched(api, `topic:${topic} ${own}`, page, perPage) : Promise.resolve(NOTHING);
  }
}

/** A page of a listing; past the last page, the `Link` header of page 1 tells how many there are. */
async function listed(
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

async function searched(
  api: GitHubApi,
  query: string,
  page: number,
  perPage: number,
): Promise<ListedRepositories> {
  const pages = (total: number) => Math.ceil(Math.min(total, SEARCH_RESULTS) / perPage);
  if ((page - 1) * perPage >= SEARCH_RESULTS) {
    // a page past what the search serves is not asked for; one result tells how many there are
    return { repositories: [], totalPages: pages((await api.searchRepositories(query, 1, 1)).totalCount) };
  }
  const found = await api.searchRepositories(query, page, perPage);
  return { repositories: found.repositories, totalPages: pages(found.totalCount) };
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
