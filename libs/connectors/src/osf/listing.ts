import type { CollectionPage, CollectionQuery, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { relatedId, type CollectionDocument, type OsfNode, type OsfUser } from './entities';
import { locate, type Located } from './locate';
import { containerOf, fileSummary, nodeSummary, storageSummary } from './resources';
import type { OsfSessionContext } from './session-context';

type Search = NonNullable<CollectionQuery['search']>;
type Filters = Record<string, string>;

/**
 * A page of the user's top-level nodes, newest first, optionally searched: page n of ours is OSF's page n
 * of `users/me/nodes/` with our page size, filtered there (https://developer.osf.io/#operation/users_nodes_list).
 */
export async function listResources(
  context: OsfSessionContext,
  query: CollectionQuery,
): Promise<CollectionPage> {
  if (query.search?.filter === 'id') return findById(context, query.search.value, query.page);
  const filters = query.search ? await searchFilters(context, query.search) : {};
  if (filters === null) return { resources: [], totalPages: 1, perPage: context.perPage };
  const pageQuery = {
    'filter[parent]': 'null',
    ...filters,
    sort: '-date_modified',
    page: query.page,
    'page[size]': context.perPage,
  };
  const page = await context.api.page<OsfNode>(context.user.nodesUrl, pageQuery);
  // past the last page, OSF answers 404: the page count comes from the first page
  const counted = page ?? (await context.api.page<OsfNode>(context.user.nodesUrl, { ...pageQuery, page: 1 }));
  return {
    resources: (page?.data ?? []).map((node) => nodeSummary(node, null)),
    ...pagesOf(counted, context.perPage),
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
async function searchFilters(context: OsfSessionContext, search: Search): Promise<Filters | null> {
  switch (search.filter) {
    case 'title':
      return { 'filter[title]': search.value };
    case 'keywords':
      return { 'filter[tags]': search.value };
    case 'author': {
      const author = await authorId(context, search.value);
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
async function authorId(context: OsfSessionContext, name: string): Promise<string | null> {
  if (context.user.fullName.toLowerCase().includes(name.toLowerCase())) return context.user.id;
  const users = await context.api.page<OsfUser>('users/', {
    'filter[full_name]': name,
    page: 1,
    'page[size]': 1,
  });
  return users?.data[0]?.id ?? null;
}

/** The one resource with this id, at any depth, when the user may see it. */
async function findById(context: OsfSessionContext, id: string, page: number): Promise<CollectionPage> {
  const found: CollectionPage = { resources: [], totalPages: 1, perPage: context.perPage };
  try {
    const located = await locate(context.api, id);
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
