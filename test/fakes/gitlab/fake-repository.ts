import { createHash } from 'node:crypto';

/**
 * A git repository as the fake GitLab keeps it: a list of commits, each a full snapshot of its files (the
 * same Buffers shared between snapshots). Object ids are computed as git computes them, so the ids the fake
 * answers are the ids a real GitLab would answer for the same content.
 */

export interface FakeCommit {
  id: string;
  message: string;
  committedDate: string;
  parentIds: string[];
  files: ReadonlyMap<string, Buffer>;
  /** folders holding nothing: git keeps one only as an empty tree object, which a push can make and the commits API cannot */
  emptyFolders: ReadonlySet<string>;
}

export interface TreeEntryJson {
  id: string;
  name: string;
  type: 'tree' | 'blob';
  path: string;
  mode: string;
}

export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function children(commit: FakeCommit, folder: string): Map<string, 'tree' | Buffer> | null {
  const prefix = folder === '' ? '' : `${folder}/`;
  const found = new Map<string, 'tree' | Buffer>();
  const add = (path: string, leaf: 'tree' | Buffer) => {
    if (!path.startsWith(prefix)) return;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) found.set(rest, leaf);
    else found.set(rest.slice(0, slash), 'tree');
  };
  for (const [path, content] of commit.files) add(path, content);
  for (const path of commit.emptyFolders) add(path, 'tree');
  if (folder !== '' && found.size === 0 && !commit.emptyFolders.has(folder)) return null;
  return found;
}

/** The id of a git tree object: `tree <size>\0` then `<mode> <name>\0<20-byte id>` per entry, in git's order. */
function treeId(commit: FakeCommit, folder: string): string {
  const entries = [...(children(commit, folder) ?? new Map<string, 'tree' | Buffer>())].map(
    ([name, leaf]) => ({
      name,
      mode: leaf === 'tree' ? '40000' : '100644',
      id: leaf === 'tree' ? treeId(commit, folder === '' ? name : `${folder}/${name}`) : gitBlobId(leaf),
      // git sorts a tree's entries by name, a folder's name as if it ended in '/'
      key: leaf === 'tree' ? `${name}/` : name,
    }),
  );
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  const body = Buffer.concat(
    entries.map((entry) =>
      Buffer.concat([Buffer.from(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.id, 'hex')]),
    ),
  );
  return createHash('sha1').update(`tree ${body.length}\0`).update(body).digest('hex');
}

/**
 * A folder's entries as GitLab lists them (`sorted_entries`: folders, then files, each by name); null when
 * the commit has no such folder.
 */
export function treeEntries(commit: FakeCommit, folder: string): TreeEntryJson[] | null {
  const found = children(commit, folder);
  if (!found) return null;
  const byName = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const entry = (name: string): TreeEntryJson => {
    const path = folder === '' ? name : `${folder}/${name}`;
    const leaf = found.get(name)!;
    return leaf === 'tree'
      ? { id: treeId(commit, path), name, type: 'tree', path, mode: '040000' }
      : { id: gitBlobId(leaf), name, type: 'blob', path, mode: '100644' };
  };
  const names = [...found.keys()].sort(byName);
  return [
    ...names.filter((name) => found.get(name) === 'tree').map(entry),
    ...names.filter((name) => found.get(name) !== 'tree').map(entry),
  ];
}

/** Whether `path` is a folder (or inside one) in the commit. */
export function isFolder(commit: FakeCommit, path: string): boolean {
  return children(commit, path) !== null && !commit.files.has(path);
}

/** A commit id: any 40 hex digits do; these depend on the content and the commit's place in history. */
export function commitId(
  parentIds: readonly string[],
  message: string,
  files: ReadonlyMap<string, Buffer>,
): string {
  const hash = createHash('sha1').update(parentIds.join(',')).update(message);
  for (const [path, content] of [...files].sort(([a], [b]) => (a < b ? -1 : 1)))
    hash.update(path).update(gitBlobId(content));
  return hash.digest('hex');
}
