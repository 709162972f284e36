import type { CollectionPage, CollectionQuery, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import type { OsfApi } from './api';
import { relatedId, type CollectionDocument, type OsfAccount, type OsfNode, type OsfUser } from './entities';
import { locate, type Located } from './locate';
import { containerOf, fileSummary, nodeSummary, storageSummary } from './detail';
import type { OsfSession } from './session';

type Search = NonNullable<CollectionQuery['search']>;
type Filters = Record<string, string>;

/**
 * A page of the user's top-level nodes, newest first, optionally searched: page n of ours is OSF's page n
 * of `users/me/nodes/` with our page size, filtered there (https://developer.osf.io/#operation/users_nodes_list).
 */
export async function listResources(
  { api, account, perPage }: OsfSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  if (query.search?.filter === 'id') return findById(api, query.search.value, query.page, perPage);
  const filters = query.search ? await searchFilters(api, account, query.search) : {};
  if (filters === null) return { resources: [], totalPages: 1, perPage };
  const pageQuery = {
    'filter[parent]': 'null',
    ...filters,
    sort: '-date_modified',
    page: query.page,
    'page[size]': perPage,
  };
  const page = await api.page<OsfNode>(account.nodesUrl, pageQuery);
  // past the last page, OSF answers 404: the page count comes from the first page
  const counted = page ?? (await api.page<OsfNode>(account.nodesUrl, { ...pageQuery, page: 1 }));
  return {
    resources: (page?.data ?? []).map((node) => nodeSummary(node, null)),
    ...pagesOf(counted, perPage),
  };
}

function pagesOf(page: CollectionDocument<unknown> | null, asked: number): Omit<CollectionPage, 'resources'> {
  const perPage = page?.meta?.per_page ?? asked;
  const total = page?.meta?.total ?? page?.data.length ?? 0;
  return { perPage, totalPages: Math.max(1, Math.ceil(total / perPage)) };
}

/**
 * OSF's filters for a search: `title` matches a substring of the title, `keywords` a tag (whole, ignoring
 * case), `author` a contributor. Null when nothing can match.
 */
async function searchFilters(api: OsfApi, account: OsfAccount, search: Search): Promise<Filters | null> {
  switch (search.filter) {
    case 'title':
      return { 'filter[title]': search.value };
    case 'keywords':
      return { 'filter[tags]': search.value };
    case 'author': {
      const author = await authorId(api, account, search.value);
      return author === null ? null : { 'filter[contributors]': author };
    }
    default:
      throw new ConnectorError(
        400,
        `OSF cannot search by ${search.filter}; search by title, id, author or keywords.`,
      );
  }
}

/**
 * OSF filters nodes by one contributor's id: the user behind the token when the name is part of theirs,
 * else the first user whose full name contains it (https://developer.osf.io/#operation/users_list).
 */
async function authorId(api: OsfApi, account: OsfAccount, name: string): Promise<string | null> {
  if (account.fullName.toLowerCase().includes(name.toLowerCase())) return account.id;
  const users = await api.page<OsfUser>('users/', {
    'filter[full_name]': name,
    page: 1,
    'page[size]': 1,
  });
  return users?.data[0]?.id ?? null;
}

/** The one resource with this id, at any depth, when the user may see it. */
async function findById(api: OsfApi, id: string, page: number, perPage: number): Promise<CollectionPage> {
  const found: CollectionPage = { resources: [], totalPages: 1, perPage };
  try {
    const located = await locate(api, id);
    if (page === 1) found.resources.push(summaryOf(located));
  } catch (error) {
    if (!(error instanceof ConnectorError) || ![403, 404, 410].includes(error.status)) throw error;
  }
  return found;
}

function summaryOf(located: Located): ResourceSummary {
  switch (located.kind) {
    case 'node':
      return nodeSummary(located.node, relatedId(located.node, 'parent'));
    case 'storage':
      return storageSummary(located.storage, located.node.id);
    case 'file':
      return fileSummary(located.file, containerOf(located.file));
  }
}
