import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Every relative link in README.md and docs/ leads to a file that exists, and to a heading of it when it names
 * one; so does every `docs/<page>.md#anchor` that a comment in the code cites. A page moved or a heading
 * renamed fails here instead of leaving a dead link.
 */
const ROOT = resolve(__dirname, '../..');

/** Files under `dir` (relative to the root) whose names `keep` accepts, leaving out what is not ours. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const skipped = new Set(['node_modules', 'dist', '.git', 'fixtures', 'var']);
  const found: string[] = [];
  const visit = (path: string) => {
    for (const entry of readdirSync(join(ROOT, path), { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) visit(child);
      } else if (keep(entry.name)) {
        found.push(child);
      }
    }
  };
  if (existsSync(join(ROOT, dir))) visit(dir);
  return found;
}

/** The text outside fenced code blocks and inline code, where links and headings count. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors of a markdown file's headings, numbered as GitHub numbers repeated ones. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const markdown = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** Why `target` (a path relative to `from`'s folder, maybe with `#anchor`) leads nowhere, or null. */
function deadLink(from: string, target: string): string | null {
  const [path, anchor] = target.split('#', 2);
  const file = path === '' ? join(ROOT, from) : resolve(ROOT, dirname(from), decodeURI(path));
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return null;
  return anchorsOf(file).has(anchor) ? null : `${relative(ROOT, file)} has no heading #${anchor}`;
}

const markdownFiles = ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md'))];

describe('links in README.md and docs/', () => {
  it('finds the pages', () => {
    expect(markdownFiles).toEqual(expect.arrayContaining(['README.md', 'docs/behaviour.md']));
  });

  it.each(markdownFiles)('every relative link in %s leads to a file and heading that exist', (file) => {
    const dead: string[] = [];
    for (const [, target] of prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(
      /\]\(\s*<?([^)\s>]+)>?[^)]*\)/g,
    )) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const problem = deadLink(file, target);
      if (problem) dead.push(`${target}: ${problem}`);
    }
    expect(dead).toEqual([]);
  });
});

describe('docs/ pages the code cites', () => {
  it('names pages and headings that exist', () => {
    const sources = ['apps', 'libs', 'test', 'bench', 'scripts', 'docker', '.ci'].flatMap((dir) =>
      filesUnder(dir, (name) => /\.(ts|js|mjs|sh|ya?ml|py|conf)$|^Dockerfile$|^run$/.test(name)),
    );
    expect(sources.length).toBeGreaterThan(100);
    const dead: string[] = [];
    let cited = 0;
    for (const file of sources) {
      // a citation stands after a space, a bracket or a backtick; `repo/docs/x.md` and 'docs/x.md' (data) are not ours
      for (const [, target] of readFileSync(join(ROOT, file), 'utf8').matchAll(
        /(?<=^|[\s(`])(docs\/[\w./-]+\.md(?:#[\w-]+)?)/gm,
      )) {
        cited += 1;
        const problem = deadLink('README.md', target);
        if (problem) dead.push(`${file}: ${target}: ${problem}`);
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(dead).toEqual([]);
  });
});
