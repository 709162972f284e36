import type { CollectionPage, CollectionQuery } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { byName } from '../upstream-values';
import { nameOf, type DavEntry } from './entities';
import { decodeId } from './ids';
import { summarize } from './detail';
import type { WebdavSession } from './session';

/** Newest first, then by name, so that pages are stable. */
function newestFirst(a: DavEntry, b: DavEntry): number {
  return Date.parse(b.modified) - Date.parse(a.modified) || byName(nameOf(a), nameOf(b));
}

/** The resource an id names, at any depth, when the user has it. */
async function findById({ api, perPage }: WebdavSession, id: string, page: number): Promise<CollectionPage> {
  const path = decodeId(id);
  const found = path ? await foundOrNull(api.propfind(path, 0, id)) : null;
  return { resources: found && page === 1 ? [summarize(found[0])] : [], totalPages: 1, perPage };
}

/**
 * The user's projects: the folders at the top of their root, newest first, a page of them; searched by their
 * name (general and title) or by id. WebDAV has no paging or search of its own: the root's one PROPFIND of
 * Depth 1 answers every member, and the page is cut here.
 */
export async function listResources(session: WebdavSession, query: CollectionQuery): Promise<CollectionPage> {
  const { api, perPage } = session;
  const search = query.search;
  if (search?.filter === 'id') return findById(session, search.value.trim(), query.page);
  if (search && search.filter !== 'general' && search.filter !== 'title')
    throw new ConnectorError(400, 'WebDAV projects are searched by general, title or id.');
  const needle = search?.value.trim().toLowerCase();
  const [, ...members] = await api.propfind([], 1);
  const projects = members
    .filter((entry) => entry.collection && entry.path.length === 1)
    .filter((entry) => needle === undefined || nameOf(entry).toLowerCase().includes(needle))
    .sort(newestFirst);
  const start = (query.page - 1) * perPage;
  return {
    resources: projects.slice(start, start + perPage).map(summarize),
    totalPages: Math.max(1, Math.ceil(projects.length / perPage)),
    perPage,
  };
}
