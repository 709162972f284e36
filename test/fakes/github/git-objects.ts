import { createHash } from 'node:crypto';

/**
 * A git object database as the fake GitHub keeps it: blobs, trees and commits named by the SHA-1 of their
 * git encoding (https://git-scm.com/book/en/v2/Git-Internals-Git-Objects), so that the blob shas the fake
 * answers are the real git blob ids of the content.
 */

export interface GitTreeEntry {
  name: string;
  /** as the API spells them: `100644`, `100755`, `120000`, `040000`, `160000` */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

export interface GitCommit {
  tree: string;
  parents: string[];
  message: string;
  /** ISO 8601, to the second */
  date: string;
  author: { name: string; email: string };
}

type GitObject =
  | { type: 'blob'; content: Buffer }
  | { type: 'tree'; entries: GitTreeEntry[] }
  | ({ type: 'commit' } & GitCommit);

export const FILE_MODE = '100644';
export const TREE_MODE = '040000';
const MODE_TYPES: Record<string, GitTreeEntry['type']> = {
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'blob',
  '040000': 'tree',
  '160000': 'commit',
};

/** A change to a tree: the entry to put at a path, or null to remove what is there. */
export interface TreeChange {
  path: string[];
  entry: Omit<GitTreeEntry, 'name'> | null;
}

/** A request git (or GitHub) refuses; the routes answer it with 422. */
export class GitError extends Error {}

export function typeOfMode(mode: string): GitTreeEntry['type'] | undefined {
  return MODE_TYPES[mode];
}

function objectSha(type: string, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/** git's order of tree entries: by name, a subtree's name taken as if it ended with `/` */
function treeOrder(a: GitTreeEntry, b: GitTreeEntry): number {
  const key = (entry: GitTreeEntry) => Buffer.from(entry.type === 'tree' ? `${entry.name}/` : entry.name);
  return Buffer.compare(key(a), key(b));
}

export class GitObjects {
  private readonly objects = new Map<string, GitObject>();

  has(sha: string, type?: GitObject['type']): boolean {
    const object = this.objects.get(sha);
    return object !== undefined && (type === undefined || object.type === type);
  }

  blob(sha: string): Buffer | undefined {
    const object = this.objects.get(sha);
    return object?.type === 'blob' ? object.content : undefined;
  }

  tree(sha: string): GitTreeEntry[] | undefined {
    const object = this.objects.get(sha);
    return object?.type === 'tree' ? object.entries : undefined;
  }

  commit(sha: string): GitCommit | undefined {
    const object = this.objects.get(sha);
    return object?.type === 'commit' ? object : undefined;
  }

  putBlob(content: Buffer): string {
    const sha = objectSha('blob', content);
    this.objects.set(sha, { type: 'blob', content });
    return sha;
  }

  putTree(entries: GitTreeEntry[]): string {
    const sorted = [...entries].sort(treeOrder);
    const body = Buffer.concat(
      sorted.flatMap((entry) => [
        Buffer.from(`${entry.mode.replace(/^0/, '')} ${entry.name}\0`),
        Buffer.from(entry.sha, 'hex'),
      ]),
    );
    const sha = objectSha('tree', body);
    this.objects.set(sha, { type: 'tree', entries: sorted });
    return sha;
  }

  putCommit(commit: GitCommit): string {
    const seconds = Math.floor(Date.parse(commit.date) / 1000);
    const person = `${commit.author.name} <${commit.author.email}> ${seconds} +0000`;
    const body = [
      `tree ${commit.tree}`,
      ...commit.parents.map((parent) => `parent ${parent}`),
      `author ${person}`,
      `committer ${person}`,
      '',
      commit.message,
    ].join('\n');
    const sha = objectSha('commit', Buffer.from(body));
    this.objects.set(sha, { type: 'commit', ...commit });
    return sha;
  }

  /** A new tree: `base` (or nothing) with the changes made, subtrees on the way made or rewritten. */
  changeTree(base: string | undefined, changes: readonly TreeChange[]): string {
    const entries = new Map(
      (base === undefined ? [] : (this.tree(base) ?? [])).map((entry) => [entry.name, entry]),
    );
    const nested = new Map<string, TreeChange[]>();
    for (const change of changes) {
      const [name, ...rest] = change.path;
      if (rest.length > 0) {
        nested.set(name, [...(nested.get(name) ?? []), { path: rest, entry: change.entry }]);
      } else if (change.entry) {
        entries.set(name, { name, ...change.entry });
      } else if (!entries.delete(name)) {
        throw new GitError(`there is nothing at ${change.path.join('/')} to delete`);
      }
    }
    for (const [name, inner] of nested) {
      const current = entries.get(name);
      if (current && current.type !== 'tree') throw new GitError(`${name} is not a tree`);
      entries.set(name, { name, mode: TREE_MODE, type: 'tree', sha: this.changeTree(current?.sha, inner) });
    }
    return this.putTree([...entries.values()]);
  }

  /** The entry at a path below a tree. */
  entryAt(treeSha: string, path: readonly string[]): GitTreeEntry | undefined {
    let entry: GitTreeEntry | undefined;
    let tree: string | undefined = treeSha;
    for (const name of path) {
      entry = tree === undefined ? undefined : this.tree(tree)?.find((candidate) => candidate.name === name);
      if (!entry) return undefined;
      tree = entry.type === 'tree' ? entry.sha : undefined;
    }
    return entry;
  }

  /** Every blob below a tree by path; an empty folder as its path with a trailing `/`. */
  files(treeSha: string, prefix = ''): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
    const entries = this.tree(treeSha) ?? [];
    if (entries.length === 0 && prefix !== '') files.set(prefix, Buffer.alloc(0));
    for (const entry of entries) {
      const path = `${prefix}${entry.name}`;
      if (entry.type === 'tree')
        for (const [inner, content] of this.files(entry.sha, `${path}/`)) files.set(inner, content);
      else if (entry.type === 'blob') files.set(path, this.blob(entry.sha) ?? Buffer.alloc(0));
    }
    return files;
  }

  /** A commit and every commit it descends from, newest first. */
  history(commitSha: string): { sha: string; commit: GitCommit }[] {
    const seen = new Set<string>();
    const pending = [commitSha];
    const found: { sha: string; commit: GitCommit }[] = [];
    for (let sha = pending.shift(); sha !== undefined; sha = pending.shift()) {
      const commit = this.commit(sha);
      if (!commit || seen.has(sha)) continue;
      seen.add(sha);
      found.push({ sha, commit });
      pending.push(...commit.parents);
    }
    return found.sort((a, b) => Date.parse(b.commit.date) - Date.parse(a.commit.date));
  }
}
