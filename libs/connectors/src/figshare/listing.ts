import type { CollectionPage, CollectionQuery, SearchFilter } from '../connector';
import { ConnectorError, foundOrNull } from '../connector-error';
import { lookaheadPage } from '../lookahead-page';
import type { FigshareApi } from './api';
import { projectSummary } from './detail';
import { parseId } from './ids';
import { readProject } from './published';
import type { FigshareSession } from './session';

/** A value as one phrase of FigShare's search syntax, whatever characters it holds. */
function phrase(value: string): string {
  return `"${value.replace(/["\\]/g, ' ').trim()}"`;
}

/**
 * The `search_for` of a search filter: a phrase over every field, or over the title with the `:title:` field
 * operator (https://docs.figshare.com/#search).
 */
function searchFor(filter: Exclude<SearchFilter, 'id'>, value: string): string {
  switch (filter) {
    case 'general':
      return phrase(value);
    case 'title':
      return `:title: ${phrase(value)}`;
    case 'author':
    case 'keywords':
      throw new ConnectorError(400, 'FigShare projects are searched by general, title or id.');
  }
}

/** The project an id search names, when the user may see it: one of theirs, or anyone's published project. */
async function projectById(
  api: FigshareApi,
  id: string,
  perPage: number,
  page: number,
): Promise<CollectionPage> {
  const parsed = parseId(id);
  const found = parsed?.kind === 'project' ? await foundOrNull(readProject(api, parsed.project, id)) : null;
  return { resources: found && page === 1 ? [projectSummary(found.project)] : [], totalPages: 1, perPage };
}

/** The user's projects, most recently changed first, or those a search finds. */
export async function listResources(
  { api, perPage }: FigshareSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const search = query.search;
  if (search?.filter === 'id') return projectById(api, search.value.trim(), perPage, query.page);
  const terms = search ? searchFor(search.filter, search.value) : null;
  const fetch = (page: number, pageSize: number) =>
    terms === null ? api.projects({ page, pageSize }) : api.searchProjects(terms, { page, pageSize });
  return lookaheadPage(fetch, projectSummary, perPage, query.page);
}
