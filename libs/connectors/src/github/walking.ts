import { GIT_BLOB_SHA1 } from '@app/fixity';
import type { RemoteFile, RemoteFolder } from '../connector';
import type { FileEntry, GitDatabase } from './git-database';
import type { GitHubApi } from './github-api';
import { locate, sortedEntries } from './resources';

/**
 * Everything below a resource, depth first: one tree fetched per folder (following each subtree's `url`), so
 * only one listing per level is held; each folder's files come before its subfolders.
 */
export async function* walk(api: GitHubApi, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const { database, entry, treeUrl } = await locate(api, id);
  if (entry?.kind === 'file') yield remoteFile(database, entry.name, entry);
  else yield* walkTree(database, treeUrl, entry?.name ?? database.repository.name, id);
}

async function* walkTree(
  database: GitDatabase,
  treeUrl: string | null,
  path: string,
  id: string,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  yield { kind: 'folder', path };
  // an empty repository has no tree yet
  if (treeUrl === null) return;
  const { folders, files } = sortedEntries(await database.listing(treeUrl, id));
  for (const file of files) yield remoteFile(database, `${path}/${file.name}`, file);
  for (const folder of folders) yield* walkTree(database, folder.url, `${path}/${folder.name}`, id);
}

function remoteFile(database: GitDatabase, path: string, entry: FileEntry): RemoteFile {
  return {
    kind: 'file',
    path,
    size: entry.size,
    // a git blob's id is the SHA-1 of its content: a checksum GitHub keeps of every file
    sourceHashes: async (wanted): Promise<Record<string, string>> =>
      wanted.includes(GIT_BLOB_SHA1) ? { [GIT_BLOB_SHA1]: entry.sha } : {},
    open: () => database.openBlob(entry.url),
  };
}
