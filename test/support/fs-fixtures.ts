import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { FilesystemOptions } from '@app/connectors/filesystem';
import { TOKEN, type ConnectorUnderTest } from '../conformance/suite';

export const ALL_ACTIONS = {
  resource_collection: true,
  resource_detail: true,
  resource_download: true,
  resource_upload: true,
  resource_transfer_in: true,
  resource_transfer_out: true,
  keywords: true,
  keywords_upload: true,
};

/** A filesystem targets-file entry; `overrides` replace top-level fields. */
export function filesystemEntry(name: string, root: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    readable_name: `Test ${name}`,
    status_url: 'file:///',
    token_url: 'http://localhost/token',
    supported_actions: ALL_ACTIONS,
    supported_transfer_partners: { transfer_in: [], transfer_out: [] },
    supported_hash_algorithms: ['md5', 'sha256'],
    infinite_depth: true,
    search_parameters: ['general', 'title', 'id', 'author', 'keywords'],
    connector: 'filesystem',
    options: { root, tokens: { 'alice-token': 'alice', 'bob-token': 'bob' } },
    ...overrides,
  };
}

/** `src` and `dst`, filesystem targets over two folders, each the other's transfer partner. */
export function partneredEntries(source: string, destination: string) {
  const partners = (name: string) => ({
    supported_transfer_partners: { transfer_in: [name], transfer_out: [name] },
  });
  return [
    filesystemEntry('src', source, partners('dst')),
    filesystemEntry('dst', destination, partners('src')),
  ];
}

export function writeTargetsFile(entries: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'presqt-targets-')), 'targets.json');
  writeFileSync(file, JSON.stringify(entries, null, 2));
  return file;
}

/** Writes `files` (relative path → content) under `dir`. */
export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, content);
  }
}

/** Sets a path's modification time to `minutesAgo` before now. */
export function touch(path: string, minutesAgo: number): void {
  const when = new Date(Date.now() - minutesAgo * 60_000);
  utimesSync(path, when, when);
}

/** base64url of a path relative to the user's directory: the filesystem connector's id scheme. */
export function fsId(relativePath: string): string {
  return Buffer.from(relativePath, 'utf8').toString('base64url');
}

/**
 * The files of a filesystem target's project by its id (base64url of its folder under `<root>/<user>/`), path →
 * sha256, without the metadata file the service keeps there.
 */
export function projectDigests(root: string, user: string, id: string): Record<string, string> {
  const files = treeDigests(join(root, user, Buffer.from(id, 'base64url').toString('utf8')));
  delete files['PRESQT_FTS_METADATA.json'];
  return files;
}

/** Path (relative to `dir`) → sha256 of every file below `dir`. */
export function treeDigests(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const visit = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) visit(path);
      else files[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  visit(dir);
  return files;
}

let seededProjects = 0;

/**
 * A filesystem project for the conformance suite: `files` (a path ending in `/` is an empty folder) and
 * `keywords` in `<userDir>/<title>`, dated after the project seeded before it and long before anything a test
 * makes itself. Its id.
 */
export function seedFilesystemProject(
  userDir: string,
  title: string,
  files: Record<string, string | Buffer>,
  { keywords }: { keywords?: string[] } = {},
): string {
  const dir = join(userDir, title);
  mkdirSync(dir, { recursive: true });
  for (const path of Object.keys(files))
    if (path.endsWith('/')) mkdirSync(join(dir, path), { recursive: true });
  writeTree(dir, Object.fromEntries(Object.entries(files).filter(([path]) => !path.endsWith('/'))));
  if (keywords) writeFileSync(join(dir, '.presqt-keywords.json'), JSON.stringify(keywords));
  seededProjects++;
  utimesSync(dir, 1_600_000_000 + seededProjects, 1_600_000_000 + seededProjects);
  return fsId(title);
}

/** A filesystem target over a new temporary directory, as the conformance suite tests one. */
export async function filesystemUnderTest(): Promise<ConnectorUnderTest<FilesystemOptions>> {
  const tmp = mkdtempSync(join(tmpdir(), 'fs-conformance-'));
  const root = join(tmp, 'root');
  return {
    options: { root, tokens: { [TOKEN]: 'alice' } },
    context: { dataDir: tmp },
    seedProject: async (title, files, options) =>
      seedFilesystemProject(join(root, 'alice'), title, files, options),
    reset: async () => {
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { recursive: true });
    },
    teardown: () => rm(tmp, { recursive: true, force: true }),
  };
}
