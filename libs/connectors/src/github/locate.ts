import { ConnectorError } from '../connector-error';
import type { GitHubApi } from './api';
import { GitDatabase, type BranchHead, type FileEntry, type FolderEntry } from './git-database';
import { parseResourceId } from './ids';

/** A resource an id names, found on its repository's default branch. */
export interface Located {
  database: GitDatabase;
  /** names from the repository's root; empty for the repository */
  path: string[];
  /** the head of the default branch; null for an empty repository */
  head: BranchHead | null;
  /** the folder or file; undefined for the repository */
  entry?: FolderEntry | FileEntry;
  /** the tree of the repository (null while it is empty) or of the folder; null for a file */
  treeUrl: string | null;
}

/** Finds what an id names, one tree per level of its path; ConnectorError 404 when there is nothing. */
export async function locate(api: GitHubApi, id: string): Promise<Located> {
  const address = parseResourceId(id);
  if (!address) throw ConnectorError.unknownResource(id);
  const database = new GitDatabase(api, await api.repository(address.repositoryId, id));
  const head = await database.head(id);
  const located: Located = { database, path: address.path, head, treeUrl: head?.treeUrl ?? null };
  for (const name of address.path) {
    if (located.treeUrl === null) throw ConnectorError.unknownResource(id);
    const entry = (await database.listing(located.treeUrl, id)).find((candidate) => candidate.name === name);
    if (!entry || entry.kind === 'other') throw ConnectorError.unknownResource(id);
    located.entry = entry;
    located.treeUrl = entry.kind === 'folder' ? entry.url : null;
  }
  return located;
}
