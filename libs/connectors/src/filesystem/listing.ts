import type { Dirent, Stats } from 'node:fs';
import { constants, lstatSync, opendirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import type { CollectionPage, CollectionQuery, ResourceSummary, SearchFilter } from '../connector';
import { FTS_METADATA_FILE } from '@app/metadata';
import { ConnectorError } from '../connector-error';
import { decodeId, encodeId, isReserved, resolveInside } from './paths';

/** The target's own keyword store of a project: a JSON array of strings. */
export const KEYWORDS_FILE = '.presqt-keywords.json';
const MAX_METADATA_BYTES = 1 << 20;

type PageRequest = CollectionQuery & { perPage: number };
/** How many entries of one directory are read and examined between two turns of the event loop. */
const ENTRIES_PER_TURN = 64;

export function summarize(relativePath: string, isDirectory: boolean): ResourceSummary {
  const segments = relativePath.split('/');
  const parent = segments.slice(0, -1).join('/');
  return {
    kind: isDirectory ? 'container' : 'item',
    kindName: !isDirectory ? 'file' : segments.length === 1 ? 'project' : 'folder',
    id: encodeId(relativePath),
    container: parent === '' ? null : encodeId(parent),
    title: segments[segments.length - 1],
  };
}

/**
 * Reads a directory a chunk of entries at a time (never whole) and hands each to `handle`, a chunk at once.
 * Directory entries and their metadata are read with synchronous calls: on a local disk each takes a few
 * microseconds, where a round trip through libuv's thread pool costs tens (a listing of 20 projects answered
 * about 1.8× as many requests a second in `npm run bench:listing`). Between chunks the event loop gets a turn, so a
 * huge directory does not hold up other requests.
 */
async function forEachEntry(dir: string, handle: (entry: Dirent) => Promise<void>): Promise<void> {
  // a larger buffer than the default 32 entries: fewer reads of the directory
  const directory = opendirSync(dir, { bufferSize: ENTRIES_PER_TURN });
  try {
    let entry = directory.readSync();
    while (entry !== null) {
      const chunk: Promise<void>[] = [];
      for (; entry !== null && chunk.length < ENTRIES_PER_TURN; entry = directory.readSync()) {
        if (!isReserved(entry.name)) chunk.push(handle(entry));
      }
      await Promise.all(chunk);
      if (entry !== null) await nextTurn();
    }
  } finally {
    directory.closeSync();
  }
}

/** lstat that answers null for an entry removed since its directory was read (synchronous: see forEachEntry). */
function lstatIfPresent(path: string): Stats | null {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

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

/** Reads a small JSON file without following a symlink; anything unreadable, oversized or invalid is undefined. */
async function readSmallJson(path: string): Promise<unknown> {
  // O_NONBLOCK: a FIFO planted under this name cannot hang the open.
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => null,
  );
  if (!file) return undefined;
  try {
    const stats = await file.stat();
    if (!stats.isFile() || stats.size > MAX_METADATA_BYTES) return undefined;
    const { buffer, bytesRead } = await file.read(Buffer.alloc(stats.size), 0, stats.size, 0);
    return JSON.parse(buffer.toString('utf8', 0, bytesRead)) as unknown;
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** The target's own keywords of a folder (a JSON array in a reserved file); none when absent or unreadable. */
export async function readKeywordsFile(dir: string): Promise<string[]> {
  return strings(await readSmallJson(join(dir, KEYWORDS_FILE)));
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
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
    matches(strings(field(metadata, 'allKeywords'))) ||
    matches(strings(await readSmallJson(join(dir, KEYWORDS_FILE))));
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
async function listProjects(userDir: string, query: PageRequest, match?: Matcher): Promise<CollectionPage> {
  const top = new TopProjects(query.page * query.perPage);
  let total = 0;
  await forEachEntry(userDir, async (entry) => {
    if (!entry.isDirectory()) return;
    const dir = join(userDir, entry.name);
    if (match && !(await match(dir, entry.name))) return;
    const stats = lstatIfPresent(dir);
    if (!stats?.isDirectory()) return;
    total++;
    top.add({ name: entry.name, mtimeMs: stats.mtimeMs });
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

export async function listResources(
  userDir: string,
  username: string,
  query: PageRequest,
): Promise<CollectionPage> {
  const search = query.search;
  if (!search) return listProjects(userDir, query);
  if (search.filter === 'id') return findById(userDir, search.value, query);
  return listProjects(userDir, query, matcherFor(search.filter, search.value, username));
}

/** Direct children of a container: directories then files, each by name; links and reserved names left out. */
export async function listChildren(dir: string, relativePath: string): Promise<ResourceSummary[]> {
  const directories: string[] = [];
  const files: string[] = [];
  await forEachEntry(dir, async (entry) => {
    if (entry.isDirectory()) directories.push(entry.name);
    else if (entry.isFile()) files.push(entry.name);
  });
  return [
    ...directories.sort(byName).map((name) => summarize(`${relativePath}/${name}`, true)),
    ...files.sort(byName).map((name) => summarize(`${relativePath}/${name}`, false)),
  ];
}

export interface TreeEntry {
  /** `/`-separated, from `base` */
  path: string;
  absolute: string;
  /** null for a folder */
  stats: Stats | null;
}

/**
 * Folders and regular files below `dir`, depth first, each folder before its content and each level by name,
 * so downloads are reproducible. Only one directory's names are held at a time per level.
 */
export async function* walkTree(dir: string, base: string): AsyncGenerator<TreeEntry> {
  yield { path: base, absolute: dir, stats: null };
  const directories: string[] = [];
  const files: string[] = [];
  await forEachEntry(dir, async (entry) => {
    if (entry.isDirectory()) directories.push(entry.name);
    else if (entry.isFile()) files.push(entry.name);
  });
  for (const name of files.sort(byName)) {
    const stats = lstatIfPresent(join(dir, name));
    if (stats?.isFile()) yield { path: `${base}/${name}`, absolute: join(dir, name), stats };
  }
  for (const name of directories.sort(byName)) yield* walkTree(join(dir, name), `${base}/${name}`);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total bytes and number of the regular files below a directory, walking it level by level. */
export async function measureTree(dir: string): Promise<{ size: number; fileCount: number }> {
  let size = 0;
  let fileCount = 0;
  const pending = [dir];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    const parent = current;
    try {
      await forEachEntry(parent, async (entry) => {
        const path = join(parent, entry.name);
        if (entry.isDirectory()) pending.push(path);
        if (!entry.isFile()) return;
        const stats = lstatIfPresent(path);
        if (!stats?.isFile()) return;
        size += stats.size;
        fileCount++;
      });
    } catch (error) {
      // A folder removed during the walk simply no longer counts.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir) throw error;
    }
  }
  return { size, fileCount };
}
