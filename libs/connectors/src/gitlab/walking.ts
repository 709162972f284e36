import { GIT_BLOB_SHA1 } from '@app/fixity';
import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import type { FileMeta, GitlabApi, TreeEntry } from './gitlab-api';
import { joinPath, nameOf } from './ids';
import type { Located } from './resources';

/** How many file metadata requests a walk has in flight at once. */
const METADATA_CONCURRENCY = 8;
const GIT_SHA1 = /^[0-9a-f]{40}$/;

type WalkEntry = RemoteFolder | RemoteFile;

/** Runs `task` over `items`, at most `limit` at a time, answering in the items' order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One commit's files, read at that commit so that a walk sees one state of the repository. */
class Snapshot {
  constructor(
    private readonly api: GitlabApi,
    private readonly projectId: string,
    private readonly sha: string,
    private readonly resourceId: string,
  ) {}

  /**
   * A file of the tree as the walk yields it. The tree gives no sizes, so each file's size comes from its
   * metadata (a HEAD request), which also gives its sha256; the tree entry's id is its git blob id.
   */
  async files(entries: readonly TreeEntry[], base: string): Promise<RemoteFile[]> {
    const metas = await mapLimited(entries, METADATA_CONCURRENCY, (entry) =>
      this.api.fileMeta(this.projectId, entry.path, this.sha),
    );
    return entries.map((entry, index) => {
      const meta = metas[index];
      if (!meta) throw new ConnectorError(502, `${this.api.name} listed a file it then did not find.`);
      return this.remoteFile(entry, meta, joinPath(base, entry.name));
    });
  }

  private remoteFile(entry: TreeEntry, meta: FileMeta, path: string): RemoteFile {
    // a repository in SHA-256 object format names blobs otherwise: its ids are no git-blob-sha1
    const kept: Record<string, string> = {};
    if (GIT_SHA1.test(entry.id)) kept[GIT_BLOB_SHA1] = entry.id;
    if (meta.sha256) kept.sha256 = meta.sha256;
    return {
      kind: 'file',
      path,
      size: meta.size,
      sourceHashes: async (wanted) =>
        Object.fromEntries(Object.entries(kept).filter(([algorithm]) => wanted.includes(algorithm))),
      open: () => this.api.rawFile(this.projectId, entry.path, this.sha, this.resourceId),
    };
  }

  /** A folder's files, then each subfolder depth first; only one listing page and the subfolders' names held. */
  async *folder(path: string, base: string): AsyncGenerator<WalkEntry> {
    const subfolders: TreeEntry[] = [];
    for await (const page of this.api.tree(this.projectId, path, this.sha, this.resourceId)) {
      subfolders.push(...page.filter((entry) => entry.type === 'tree'));
      yield* await this.files(
        page.filter((entry) => entry.type === 'blob'),
        base,
      );
    }
    for (const subfolder of subfolders) {
      const subBase = joinPath(base, subfolder.name);
      yield { kind: 'folder', path: subBase };
      yield* this.folder(subfolder.path, subBase);
    }
  }
}

/**
 * Every folder and file of a located resource, the resource first, each folder's files before its
 * subfolders; paths start with the resource's title. Everything is read at the commit the branch points to
 * when the walk starts.
 */
export async function* walk(api: GitlabApi, located: Located): AsyncGenerator<WalkEntry> {
  const { ref, project, entry } = located;
  const title = entry ? nameOf(ref.path) : project.name;
  if (project.empty_repo) {
    yield { kind: 'folder', path: title };
    return;
  }
  const sha = (await api.commit(ref.projectId, located.branch, located.id)).id;
  const snapshot = new Snapshot(api, ref.projectId, sha, located.id);
  if (entry?.type === 'blob') {
    yield* await snapshot.files([entry], '');
    return;
  }
  yield { kind: 'folder', path: title };
  yield* snapshot.folder(ref.path, title);
}
