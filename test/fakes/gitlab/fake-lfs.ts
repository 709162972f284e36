import { createHash } from 'node:crypto';

/**
 * Git LFS as GitLab keeps it, for the fake: the pointers it writes, how it tells a blob is one, and which paths
 * a repository's `.gitattributes` sends to LFS. Each part cites the GitLab source it follows.
 */

export interface FakeLfsPointer {
  oid: string;
  size: number;
}

/** The pointer GitLab commits for content (`lib/gitlab/git/lfs_pointer_file.rb`, the spec's one encoding). */
export function lfsPointerFor(content: Buffer): { pointer: Buffer; oid: string } {
  const oid = createHash('sha256').update(content).digest('hex');
  const text = `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${content.length}\n`;
  return { pointer: Buffer.from(text), oid };
}

/**
 * The pointer a blob is, as GitLab tells one (`Gitlab::Git::Blob#lfs_pointer?`, `lfs_oid`, `lfs_size` in
 * `lib/gitlab/git/blob.rb`): between 120 and 200 bytes, starting with the version key, with an oid and a size.
 */
export function gitlabLfsPointer(blob: Buffer): FakeLfsPointer | null {
  if (blob.length < 120 || blob.length > 200) return null;
  const text = blob.toString('utf8');
  if (!text.startsWith('version https://git-lfs.github.com/spec')) return null;
  const oid = /(?<=sha256:)([0-9a-f]{64})/.exec(text)?.[1];
  const size = /(?<=size )([0-9]+)/.exec(text)?.[1];
  return oid && size ? { oid, size: Number(size) } : null;
}

/**
 * Whether the root `.gitattributes` gives a path `filter=lfs`, as GitLab reads it when a commit is made
 * (`Lfs::FileTransformer#lfs_file?` over `repository.attributes_at(branch)`, parsed by
 * `lib/gitlab/git/attributes_parser.rb`): each pattern is matched with `File.fnmatch?` against `/<path>`
 * (so `*` also crosses `/`), and the last line that matches decides.
 */
export function isLfsTracked(gitattributes: Buffer | undefined, path: string): boolean {
  if (!gitattributes) return false;
  let filter: string | undefined;
  for (const raw of gitattributes.toString('utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...attributes] = line.split(/\s+/);
    if (!fnmatch(`/${pattern.replace(/^\//, '')}`, `/${path}`)) continue;
    filter = undefined;
    for (const attribute of attributes) {
      if (attribute.startsWith('filter=')) filter = attribute.slice('filter='.length);
      else if (attribute === '-filter') filter = undefined;
    }
  }
  return filter === 'lfs';
}

/** Ruby's `File.fnmatch?` without flags: `*` any run of characters, `?` one, `[...]` a class. */
function fnmatch(pattern: string, path: string): boolean {
  const source = pattern.replace(/[.+^${}()|\\]|\*|\?|\[[^\]]*\]/g, (token) =>
    token === '*' ? '.*' : token === '?' ? '.' : token.startsWith('[') ? token : `\\${token}`,
  );
  return new RegExp(`^${source}$`).test(path);
}
