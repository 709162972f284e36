import type { CollectionPage, CollectionQuery, ResourceSummary } from '../connector';
import { foundOrNull } from '../connector-error';
import type { GitlabApi, ListedPage } from './api';
import { entrySummary, projectSummary } from './detail';
import { isMarkedForDeletion, type GitlabProject } from './entities';
import { locate } from './locate';
import type { GitlabSession } from './session';

/** Newest activity first (https://docs.gitlab.com/api/projects/#list-all-projects). */
const NEWEST_FIRST = { order_by: 'last_activity_at', sort: 'desc' } as const;

function collectionPage(
  listed: ListedPage<GitlabProject> | null,
  page: number,
  perPage: number,
): CollectionPage {
  if (!listed) return { resources: [], totalPages: 1, perPage };
  // above 10,000 results GitLab leaves the total out; whether a next page exists is all there is to know
  const totalPages = listed.totalPages ?? (listed.hasNext ? page + 1 : page);
  return {
    resources: listed.items.filter((project) => !isMarkedForDeletion(project)).map(projectSummary),
    totalPages: Math.max(1, totalPages),
    perPage,
  };
}

/**
 * The user's projects, or those a search finds, as GitLab pages them: our page `n` is GitLab's page `n` of
 * the same size. `general` and `title` are GitLab's `search` over the user's projects (it matches names,
 * paths and descriptions), `keywords` is GitLab's `topic` filter, `author` lists the projects in that user's
 * namespace, `id` finds the one resource.
 */
export async function listResources(
  { api, perPage }: GitlabSession,
  query: CollectionQuery,
): Promise<CollectionPage> {
  const paging = { ...NEWEST_FIRST, per_page: perPage, page: query.page };
  const search = query.search;
  if (search?.filter === 'id') {
    const found = query.page === 1 ? await findById(api, search.value) : null;
    return { resources: found ? [found] : [], totalPages: 1, perPage };
  }
  if (search?.filter === 'author') {
    // https://docs.gitlab.com/api/projects/#list-a-users-projects
    const url = `users/${encodeURIComponent(search.value)}/projects`;
    return collectionPage(await api.projectPage(url, paging), query.page, perPage);
  }
  // https://docs.gitlab.com/api/projects/#list-all-projects
  const searched = !search
    ? {}
    : search.filter === 'keywords'
      ? { topic: search.value }
      : { search: search.value };
  const listed = await api.projectPage('projects', { membership: true, ...paging, ...searched });
  return collectionPage(listed, query.page, perPage);
}

/** The id filter: the resource with that id, if the user may see it. */
async function findById(api: GitlabApi, id: string): Promise<ResourceSummary | null> {
  const located = await foundOrNull(locate(api, id));
  if (!located) return null;
  return located.entry ? entrySummary(located.ref.projectId, located.entry) : projectSummary(located.project);
}
