import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import { mapLimited } from '../map-limited';
import type { GitlabApi } from './api';
import type { TreeEntry } from './entities';
import { heldChecksums, heldFile, openHeld, type HeldFile } from './held-files';
import { joinPath, nameOf } from './ids';
import { locate } from './locate';
import type { GitlabSession } from './session';

/** How many file metadata requests a walk has in flight at once. */
const METADATA_CONCURRENCY = 8;

type WalkEntry = RemoteFolder | RemoteFile;

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
   * metadata (a HEAD request), which also gives its sha256; a blob of an LFS pointer's size is read to see
   * whether it is one, and then the LFS object is the file.
   */
  async files(entries: readonly TreeEntry[], base: string): Promise<RemoteFile[]> {
    const held = await mapLimited(entries, METADATA_CONCURRENCY, (entry) =>
      heldFile(this.api, this.placeOf(entry)),
    );
    return entries.map((entry, index) => {
      const file = held[index];
      if (!file) throw new ConnectorError(502, `${this.api.name} listed a file it then did not find.`);
      return this.remoteFile(entry, file, joinPath(base, entry.name));
    });
  }

  private placeOf(entry: TreeEntry) {
    return { projectId: this.projectId, path: entry.path, ref: this.sha };
  }

  private remoteFile(entry: TreeEntry, file: HeldFile, path: string): RemoteFile {
    const kept = heldChecksums(file);
    return {
      kind: 'file',
      path,
      size: file.size,
      sourceHashes: async (wanted) =>
        Object.fromEntries(Object.entries(kept).filter(([algorithm]) => wanted.includes(algorithm))),
      open: () => openHeld(this.api, this.placeOf(entry), file, this.resourceId),
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
export async function* walk({ api }: GitlabSession, id: string): AsyncGenerator<WalkEntry> {
  const located = await locate(api, id);
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
