import { join } from 'node:path';
import { FTS_METADATA_FILE } from '@app/metadata';
import type { CollectionPage, CollectionQuery, SearchFilter } from '../connector';
import { ConnectorError } from '../connector-error';
import { summarize } from './detail';
import { entryPath, lstatIfPresent, readSmallJson, strings } from './disk';
import { decodeId } from './ids';
import { readKeywordsFile } from './keywords';
import { resolveInside } from './locate';
import type { FilesystemSession } from './session';

type PageRequest = CollectionQuery & { perPage: number };

interface Project {
  name: string;
  mtimeMs: number;
}

/** Newest first, then by name, so that pages are stable. */
function compareProjects(a: Project, b: Project): number {
  return b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The `limit` first projects in order among all those added, holding no more than `limit` of them. */
class TopProjects {
  readonly best: Project[] = [];

  constructor(private readonly limit: number) {}

  add(project: Project): void {
    let low = 0;
    let high = this.best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareProjects(this.best[middle], project) <= 0) low = middle + 1;
      else high = middle;
    }
    if (low >= this.limit) return;
    this.best.splice(low, 0, project);
    if (this.best.length > this.limit) this.best.pop();
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** "first last" and the ORCID of each creator in a metadata file's extra_metadata. */
function creatorNames(metadata: unknown): string[] {
  const creators = field(field(metadata, 'extra_metadata'), 'creators');
  if (!Array.isArray(creators)) return [];
  return creators.flatMap((creator) => {
    const name = strings([field(creator, 'first_name'), field(creator, 'last_name')]).join(' ');
    return strings([name, field(creator, 'ORCID')]).filter((text) => text !== '');
  });
}

type Matcher = (projectDir: string, name: string) => Promise<boolean>;

function matcherFor(filter: Exclude<SearchFilter, 'id'>, value: string, username: string): Matcher {
  const needle = value.toLowerCase();
  const matches = (texts: string[]) => texts.some((text) => text.toLowerCase().includes(needle));
  // The owner's name matching makes every project match, without reading any file.
  const ownerMatches = matches([username]);
  const creatorsMatch = (metadata: unknown) => matches(creatorNames(metadata));
  const keywords = async (dir: string, metadata: unknown) =>
    matches(strings(field(metadata, 'allKeywords'))) || matches(await readKeywordsFile(dir));
  const metadataOf = (dir: string) => readSmallJson(join(dir, FTS_METADATA_FILE));
  switch (filter) {
    case 'title':
      return async (_dir, name) => matches([name]);
    case 'author':
      return async (dir) => ownerMatches || creatorsMatch(await metadataOf(dir));
    case 'keywords':
      return async (dir) => keywords(dir, await metadataOf(dir));
    case 'general':
      return async (dir, name) => {
        if (ownerMatches || matches([name])) return true;
        const metadata = await metadataOf(dir);
        return creatorsMatch(metadata) || (await keywords(dir, metadata));
      };
  }
}

/** The user's projects (optionally filtered), newest first, one page of them. */
async function listProjects(
  { userDir, userDirStat, projectNames }: FilesystemSession,
  query: PageRequest,
  match?: Matcher,
): Promise<CollectionPage> {
  const top = new TopProjects(query.page * query.perPage);
  let total = 0;
  const add = (name: string, dir: string) => {
    const stats = lstatIfPresent(dir);
    if (!stats?.isDirectory()) return;
    total++;
    top.add({ name, mtimeMs: stats.mtimeMs });
  };
  await projectNames.forEach(userDir, userDirStat(), (name) => {
    const dir = entryPath(userDir, name);
    if (match) {
      return match(dir, name).then((matches) => {
        if (matches) add(name, dir);
      });
    }
    add(name, dir);
  });
  const page = top.best.slice((query.page - 1) * query.perPage);
  return {
    resources: page.map((project) => summarize(project.name, true)),
    totalPages: Math.max(1, Math.ceil(total / query.perPage)),
    perPage: query.perPage,
  };
}

/** The one resource, at any depth, with this id; none when the id names nothing the user may see. */
async function findById(
  userDir: string,
  id: string,
  { page, perPage }: PageRequest,
): Promise<CollectionPage> {
  const relativePath = decodeId(id);
  if (relativePath === null) return { resources: [], totalPages: 1, perPage };
  try {
    const { stats } = await resolveInside(userDir, relativePath, id);
    return {
      resources: page === 1 ? [summarize(relativePath, stats.isDirectory())] : [],
      totalPages: 1,
      perPage,
    };
  } catch (error) {
    if (error instanceof ConnectorError) return { resources: [], totalPages: 1, perPage };
    throw error;
  }
}

/** The user's projects, newest first, or those a search finds (by title, keywords, creators or owner). */
export async function listResources(
  session: FilesystemSession,
  collectionQuery: CollectionQuery,
): Promise<CollectionPage> {
  const query = { ...collectionQuery, perPage: session.perPage };
  const search = query.search;
  if (!search) return listProjects(session, query);
  if (search.filter === 'id') return findById(session.userDir, search.value, query);
  return listProjects(session, query, matcherFor(search.filter, search.value, session.username));
}
