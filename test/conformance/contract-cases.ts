import { Readable } from 'node:stream';
import type { RemoteFile, SearchFilter } from '@app/connectors';
import { readAll, statusOf } from '../support/connector-failures';
import {
  BAD_TOKEN,
  PER_PAGE,
  checksum,
  contents,
  copiedBytes,
  incoming,
  itWhen,
  put,
  titleOf,
  walked,
  type SeedTree,
  type Suite,
} from './suite';
import { takeBackCases } from './capability-cases';

/** What every connector does, in the shape its capabilities give it (folders or none, writes or none). */
export function contractCases(suite: Suite): void {
  describe('tokens', () => tokenCases(suite));
  describe('collection', () => collectionCases(suite));
  describe('detail', () => detailCases(suite));
  describe('walk', () => walkCases(suite));
  (suite.capabilities.write ? describe.skip : describe)('read-only', () => readOnlyCases(suite));
  (suite.capabilities.write ? describe : describe.skip)('writing', () => {
    writingCases(suite);
    takeBackCases(suite);
  });
  describe('keywords', () => keywordCases(suite));
  (suite.capabilities.write ? describe : describe.skip)('round trip', () => roundTripCases(suite));
}

/** A seeded project as the search cases know it. */
interface SeededProject {
  id: string;
  title: string;
  keywords: string[];
}

/** How each search filter finds the project 'Coral Reef Survey' (keyword 'reefs') of the user `username`. */
export const SEARCHES: Record<SearchFilter, (project: SeededProject, username: string) => string> = {
  general: (project) => project.title.split(' ')[1],
  title: (project) => project.title.split(' ')[0].toLowerCase(),
  keywords: (project) => project.keywords[0],
  author: (_project, username) => username,
  id: (project) => project.id,
};

function tokenCases(suite: Suite): void {
  it('answers 401 for a token the target refuses, and names the user of a good one', async () => {
    expect(await statusOf(suite.connector.open(BAD_TOKEN))).toBe(401);
    expect(suite.session.username).toEqual(expect.any(String));
    expect(suite.session.username.length).toBeGreaterThan(0);
  });
}

function collectionCases(suite: Suite): void {
  it('pages the top-level resources, newest first (or by name where the target says so)', async () => {
    const { target, session } = suite;
    const titles: string[] = [];
    for (let i = 1; i <= PER_PAGE + 3; i++) {
      const title = `Paged ${String(i).padStart(2, '0')}`;
      await target.seedProject(title, { 'notes.txt': `p${i}` });
      titles.push(titleOf(suite, title));
    }
    const first = await session.listResources({ page: 1 });
    const second = await session.listResources({ page: 2 });
    const third = await session.listResources({ page: 3 });
    expect(first.perPage).toBe(PER_PAGE);
    expect([first.totalPages, second.totalPages]).toEqual([2, 2]);
    // seeded oldest first, their titles in the order of their names
    const ordered = target.order === 'name' ? titles.slice() : titles.slice().reverse();
    expect(first.resources.map((resource) => resource.title)).toEqual(ordered.slice(0, PER_PAGE));
    expect(second.resources.map((resource) => resource.title)).toEqual(ordered.slice(PER_PAGE));
    expect(third.resources).toEqual([]);
    for (const resource of [...first.resources, ...second.resources]) {
      expect(resource).toMatchObject({ kind: 'container', container: null });
      expect(resource.id).not.toMatch(/[./?#]/);
    }
  });

  it('finds a project by each search filter it declares', async () => {
    const { target, session } = suite;
    const wanted: SeededProject = { id: '', title: 'Coral Reef Survey', keywords: ['reefs'] };
    const other: SeededProject = { id: '', title: 'Desert Soil Study', keywords: ['sand'] };
    for (const project of [other, wanted]) {
      project.id = await target.seedProject(project.title, { 'a.txt': 'a' }, { keywords: project.keywords });
    }
    for (const filter of suite.capabilities.searchFilters) {
      const value = SEARCHES[filter](wanted, session.username);
      const found = await session.listResources({ search: { filter, value }, page: 1 });
      const ids = found.resources.map((resource) => resource.id);
      expect({ filter, found: ids.includes(wanted.id) }).toEqual({ filter, found: true });
      if (filter !== 'author')
        expect({ filter, other: ids.includes(other.id) }).toEqual({ filter, other: false });
    }
  });
}

function detailCases(suite: Suite): void {
  const { folders } = suite.capabilities;
  it('shows a project with its children, and a file with the checksums the target keeps', async () => {
    const { target, session } = suite;
    const id = await target.seedProject('Detailed', {
      'readme.txt': 'hello',
      ...(folders ? { 'data/values.csv': 'a,b\n1,2\n' } : {}),
    });
    const project = await session.getResource(id);
    expect(project).toMatchObject({ kind: 'container', id, title: 'Detailed' });
    expect(Date.parse(project.dateModified)).not.toBeNaN();
    expect(project.children.map((child) => child.title).sort()).toEqual(
      folders ? ['data', 'readme.txt'] : ['readme.txt'],
    );
    const readme = project.children.find((child) => child.title === 'readme.txt')!;
    expect(readme).toMatchObject({ kind: 'item', container: id });
    const file = await session.getResource(readme.id);
    expect(file).toMatchObject({ kind: 'item', title: 'readme.txt', children: [] });
    for (const algorithm of ['md5', 'sha256'] as const) {
      const value = file.hashes[algorithm];
      if (value !== null)
        expect({ algorithm, value }).toEqual({ algorithm, value: checksum(algorithm, Buffer.from('hello')) });
    }
  });

  it('answers 404 for ids it does not know, whatever their shape', async () => {
    await suite.target.seedProject('Known', { 'a.txt': 'a' });
    for (const id of ['nope', '0', 'x:y:z', 'Zm9v', '..', '%2e%2e', 'a'.repeat(300)]) {
      expect({ id, status: await statusOf(suite.session.getResource(id)) }).toEqual({ id, status: 404 });
    }
  });

  it('answers 403 for a resource the user may not see, and 410 for one that is gone', async () => {
    const { target, session } = suite;
    if (target.forbiddenId) expect(await statusOf(session.getResource(await target.forbiddenId()))).toBe(403);
    if (target.goneId) expect(await statusOf(session.getResource(await target.goneId()))).toBe(410);
  });
}

function walkCases(suite: Suite): void {
  const { folders } = suite.capabilities;
  it('yields the resource first, each folder before its content and its files before its subfolders', async () => {
    const empty = folders && suite.target.emptyFolders !== false;
    const files: SeedTree = folders
      ? {
          'b.txt': 'b',
          'a.txt': 'a',
          'sub/c.txt': 'c',
          'sub/deeper/d.txt': 'd',
          ...(empty ? { 'empty/': '' } : {}),
        }
      : { 'b.txt': 'b', 'a.txt': 'a' };
    const id = await suite.target.seedProject('Walked', files);
    const entries = await walked(suite.session, id);
    expect(entries[0]).toEqual({ kind: 'folder', path: 'Walked' });
    const paths = entries.map((entry) => `${entry.kind === 'folder' ? 'D' : 'F'} ${entry.path}`);
    expect(paths).toEqual(
      folders
        ? [
            'D Walked',
            'F Walked/a.txt',
            'F Walked/b.txt',
            ...(empty ? ['D Walked/empty'] : []),
            'D Walked/sub',
            'F Walked/sub/c.txt',
            'D Walked/sub/deeper',
            'F Walked/sub/deeper/d.txt',
          ]
        : ['D Walked', 'F Walked/a.txt', 'F Walked/b.txt'],
    );
  });

  it('streams every file with its size, and vouches for it with checksums that hold', async () => {
    const big = Buffer.alloc(3 * (1 << 20) + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 13)) & 0xff;
    const note = folders ? 'docs/note.txt' : 'note.txt';
    const id = await suite.target.seedProject('Streamed', {
      'big.bin': big,
      [note]: 'a note',
      'empty.txt': '',
    });
    const expected: Record<string, Buffer> = {
      'Streamed/big.bin': big,
      [`Streamed/${note}`]: Buffer.from('a note'),
      'Streamed/empty.txt': Buffer.alloc(0),
    };
    const { hashAlgorithms } = suite.connector;
    let vouched = 0;
    for await (const entry of suite.session.walk(id)) {
      if (entry.kind !== 'file') continue;
      const bytes = await readAll(await entry.open());
      expect({ path: entry.path, equal: bytes.equals(expected[entry.path]) }).toEqual({
        path: entry.path,
        equal: true,
      });
      expect(entry.size).toBe(bytes.length);
      if (entry.copyInto)
        expect(await copiedBytes(entry)).toEqual({ equal: true, sha256: checksum('sha256', bytes) });
      for (const [algorithm, value] of Object.entries(await entry.sourceHashes(hashAlgorithms))) {
        expect(hashAlgorithms).toContain(algorithm);
        expect({ path: entry.path, algorithm, value }).toEqual({
          path: entry.path,
          algorithm,
          value: checksum(algorithm, bytes),
        });
        vouched++;
      }
    }
    if (hashAlgorithms.length > 0) expect(vouched).toBeGreaterThanOrEqual(3);
  });

  it('walks a folder and a single file from their own ids', async () => {
    const id = await suite.target.seedProject('Parts', folders ? { 'sub/x.txt': 'x' } : { 'x.txt': 'x' });
    const project = await suite.session.getResource(id);
    const entries = await walked(suite.session, project.children[0].id);
    if (folders) {
      expect(entries.map((entry) => entry.path)).toEqual(['sub', 'sub/x.txt']);
    } else {
      expect(entries.map((entry) => `${entry.kind} ${entry.path}`)).toEqual(['file x.txt']);
    }
  });
}

function readOnlyCases(suite: Suite): void {
  it('refuses every write with 400', async () => {
    const { target, session } = suite;
    const id = await target.seedProject('Read Only', { 'a.txt': 'a' });
    expect(await statusOf(session.createProject('New'))).toBe(400);
    expect(await statusOf(session.openWriter(id, { newProject: false, message: 'x' }))).toBe(400);
    expect(await statusOf(session.setKeywords(id, ['x']))).toBe(400);
  });
}

function writingCases(suite: Suite): void {
  it('makes new projects, numbering a title the user already has', async () => {
    const { session } = suite;
    const first = await session.createProject('Fresh Project');
    const second = await session.createProject('Fresh Project');
    expect(first).toMatchObject({
      kind: 'container',
      container: null,
      title: titleOf(suite, 'Fresh Project'),
    });
    expect(second.id).not.toBe(first.id);
    expect(second.title).not.toBe(first.title);
    expect(second.title).toContain(titleOf(suite, 'Fresh Project'));
    const listed = (await session.listResources({ page: 1 })).resources.map((resource) => resource.id);
    expect(listed).toEqual(expect.arrayContaining([first.id, second.id]));
  });

  it('stores files (in folders where it has them) and reports the checksums of what it stored', async () => {
    const { session, connector } = suite;
    const project = await session.createProject('Written');
    const files: Record<string, string> = suite.capabilities.folders
      ? { 'top.txt': 'top', 'data/raw/values.csv': 'x,y\n' }
      : { 'top.txt': 'top', 'values.csv': 'x,y\n' };
    const results = await put(session, project.id, files, 'ignore', true);
    expect(results.map((result) => result.outcome)).toEqual(['created', 'created']);
    for (const [index, content] of Object.values(files).entries()) {
      for (const [algorithm, value] of Object.entries(results[index].hashes)) {
        expect(connector.hashAlgorithms).toContain(algorithm);
        expect(value).toBe(checksum(algorithm, Buffer.from(content)));
      }
    }
    const title = (await session.getResource(project.id)).title;
    expect(await contents(session, project.id)).toEqual(
      Object.fromEntries(Object.entries(files).map(([path, content]) => [`${title}/${path}`, content])),
    );
  });

  it('ignores a duplicate with ignore, and with update replaces it only when the content differs', async () => {
    const { session } = suite;
    const project = await session.createProject('Duplicates');
    await put(session, project.id, { 'same.txt': 'one', 'changed.txt': 'one' }, 'ignore', true);
    const ignored = await put(session, project.id, { 'same.txt': 'two', 'changed.txt': 'two' }, 'ignore');
    expect(ignored.map((result) => result.outcome)).toEqual(['ignored', 'ignored']);
    const updated = await put(session, project.id, { 'same.txt': 'one', 'changed.txt': 'two' }, 'update');
    expect(updated.map((result) => result.outcome)).toEqual(['ignored', 'updated']);
    const title = (await session.getResource(project.id)).title;
    expect(await contents(session, project.id)).toEqual({
      [`${title}/changed.txt`]: 'two',
      [`${title}/same.txt`]: 'one',
    });
  });

  it('commits what an earlier writer of the same job staged', async () => {
    const { session } = suite;
    const project = await session.createProject('Resumed');
    const first = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
    const staged = await first.putFile(['first.txt'], incoming('1'), 'ignore');
    // the first writer's run died before its commit; a second run carries on
    const second = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
    second.restage(staged.staged === undefined ? [] : [staged.staged]);
    await second.putFile(['second.txt'], incoming('2'), 'ignore');
    await second.commit();
    const title = (await session.getResource(project.id)).title;
    expect(await contents(session, project.id)).toEqual({
      [`${title}/first.txt`]: '1',
      [`${title}/second.txt`]: '2',
    });
  });

  it('refuses to write into a file', async () => {
    const id = await suite.target.seedProject('Has a file', { 'f.txt': 'f' });
    const file = (await suite.session.getResource(id)).children[0];
    expect(await statusOf(suite.session.openWriter(file.id, { newProject: false, message: 'x' }))).toBe(400);
  });
}

function roundTripCases(suite: Suite): void {
  it('keeps every file byte for byte through a round trip of the writer and the walk', async () => {
    const { session } = suite;
    const project = await session.createProject('Round Trip');
    const bytes = Buffer.alloc(1 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 13) & 0xff;
    const writer = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
    await writer.putFile(
      ['blob.bin'],
      { size: bytes.length, open: async () => Readable.from([bytes]) },
      'ignore',
    );
    await writer.commit();
    const [file] = (await walked(session, project.id)).filter(
      (entry): entry is RemoteFile => entry.kind === 'file',
    );
    expect(checksum('md5', await readAll(await file.open()))).toBe(checksum('md5', bytes));
  });
}

function keywordCases(suite: Suite): void {
  const { keywords, write } = suite.capabilities;
  itWhen(keywords)("reads and writes a project's own keywords", async () => {
    const { target, session } = suite;
    const id = await target.seedProject('Tagged', { 'a.txt': 'a' }, { keywords: ['soil'] });
    expect(await session.keywords(id)).toEqual(['soil']);
    if (!write) return;
    const stored = await session.setKeywords(id, ['soil', 'moisture']);
    expect(stored).toEqual(['soil', 'moisture']);
    expect(await session.keywords(id)).toEqual(['soil', 'moisture']);
  });

  itWhen(!keywords)('answers 400 for the keywords of a target that keeps none', async () => {
    const id = await suite.target.seedProject('Untagged', { 'a.txt': 'a' });
    expect(await statusOf(suite.session.keywords(id))).toBe(400);
  });
}
