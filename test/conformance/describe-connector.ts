import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type Connector,
  type ConnectorSession,
  type DuplicateAction,
  type IncomingFile,
  type RemoteFile,
  type RemoteFolder,
  type SearchFilter,
} from '@app/connectors';
import { readAll, statusOf } from '../support/connector-failures';

/**
 * The contract every connector keeps, run against each one (the filesystem on a temporary directory, each
 * remote one against its fake upstream), as rclone runs its fstests over every backend. A connector's own
 * spec keeps only what is special to it.
 */

/** Files by path inside a project; a path ending in `/` is an empty folder. */
export type SeedTree = Record<string, string | Buffer>;

export interface SeedOptions {
  /** the target's own keywords of the project */
  keywords?: string[];
}

export interface ConnectorUnderTest {
  connector: Connector;
  /** a token the target accepts, and one it refuses */
  token: string;
  badToken: string;
  /** Makes a top-level resource of the token's user holding `files`, newer than any made before; its id. */
  seedProject(title: string, files: SeedTree, options?: SeedOptions): Promise<string>;
  /** Removes everything seeded and written, so each case starts from an empty account. */
  reset(): Promise<void>;
  /** the page size the connector lists with */
  perPage: number;
  /**
   * The title the target gives a resource made with `requested` (GitHub names a repository without spaces);
   * the requested title itself where the target keeps titles as they are.
   */
  titleOf?(requested: string): string;
  /** the search filters the target supports, each giving the query that finds a seeded project */
  search: Partial<Record<SearchFilter, (project: SeededProject) => string>>;
  /** folders below a project (false where the target keeps a project's files flat) */
  folders: boolean;
  /** ids of resources the user may not see (403) and that are gone (410), where the target has them */
  forbiddenId?(): Promise<string>;
  goneId?(): Promise<string>;
  teardown?(): Promise<void>;
}

export interface SeededProject {
  id: string;
  title: string;
  keywords: string[];
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Every checksum a connector may report, computed here independently of the service's own code. */
function checksum(algorithm: string, bytes: Buffer): string {
  if (algorithm === 'git-blob-sha1') {
    return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  }
  return createHash(algorithm).update(bytes).digest('hex');
}

function incoming(content: string | Buffer): IncomingFile {
  const bytes = Buffer.from(content);
  return { size: bytes.length, open: async () => Readable.from([bytes]) };
}

async function walked(session: ConnectorSession, id: string): Promise<(RemoteFile | RemoteFolder)[]> {
  const entries: (RemoteFile | RemoteFolder)[] = [];
  for await (const entry of session.walk(id)) entries.push(entry);
  return entries;
}

/** Path -> bytes of every file a walk yields. */
async function contents(session: ConnectorSession, id: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  // read as the walk goes, as jobs do: a file need not open once its walk is over (see WalkOptions)
  for await (const entry of session.walk(id)) {
    if (entry.kind === 'file') files[entry.path] = (await readAll(await entry.open())).toString('utf8');
  }
  return files;
}

export interface SuiteOptions {
  /** a target the service only reads from (CurateND): every write answers 400 */
  readOnly?: boolean;
  /**
   * What the target's writer takes back of a failed or cancelled job (ResourceWriter.abandon): a project
   * made for the job, and the files it created in an existing one (docs/behaviour.md#taking-back).
   */
  takesBack?: { newProject: boolean; createdFiles: boolean };
}

export function describeConnector(
  name: string,
  setup: () => Promise<ConnectorUnderTest>,
  options: SuiteOptions = {},
): void {
  const readOnly = options.readOnly ?? false;
  const whenWritable = readOnly ? describe.skip : describe;
  const whenReadOnly = readOnly ? describe : describe.skip;
  describe(`${name} connector: the connector contract`, () => {
    let target: ConnectorUnderTest;
    let session: ConnectorSession;

    beforeAll(async () => {
      target = await setup();
    });

    const titleOf = (requested: string) => target.titleOf?.(requested) ?? requested;

    beforeEach(async () => {
      await target.reset();
      session = await target.connector.open(target.token);
    });

    afterAll(async () => {
      await target?.teardown?.();
    });

    async function put(
      containerId: string,
      files: Record<string, string>,
      duplicate: DuplicateAction = 'ignore',
      newProject = false,
    ) {
      // as a job says, so that a target without folders can keep nested files together
      const nested = Object.keys(files).some((path) => path.includes('/'));
      const writer = await session.openWriter(containerId, { newProject, message: 'conformance', nested });
      const results = [];
      for (const [path, content] of Object.entries(files))
        results.push(await writer.putFile(path.split('/'), incoming(content), duplicate));
      await writer.commit();
      return results;
    }

    describe('tokens', () => {
      it('answers 401 for a token the target refuses, and names the user of a good one', async () => {
        expect(await statusOf(target.connector.open(target.badToken))).toBe(401);
        expect(session.username).toEqual(expect.any(String));
        expect(session.username.length).toBeGreaterThan(0);
      });
    });

    describe('collection', () => {
      it('pages the top-level resources, newest first', async () => {
        const count = target.perPage + 3;
        const titles: string[] = [];
        for (let i = 1; i <= count; i++) {
          const title = `Paged ${String(i).padStart(2, '0')}`;
          await target.seedProject(title, { 'notes.txt': `p${i}` });
          titles.push(titleOf(title));
        }
        const first = await session.listResources({ page: 1 });
        const second = await session.listResources({ page: 2 });
        const third = await session.listResources({ page: 3 });
        expect(first.perPage).toBe(target.perPage);
        expect([first.totalPages, second.totalPages]).toEqual([2, 2]);
        expect(first.resources.map((resource) => resource.title)).toEqual(
          titles.slice().reverse().slice(0, target.perPage),
        );
        expect(second.resources.map((resource) => resource.title)).toEqual(titles.slice(0, 3).reverse());
        expect(third.resources).toEqual([]);
        for (const resource of [...first.resources, ...second.resources]) {
          expect(resource).toMatchObject({ kind: 'container', container: null });
          expect(resource.id).not.toMatch(/[./?#]/);
        }
      });

      it('finds a project by each search filter it supports', async () => {
        const wanted: SeededProject = { id: '', title: 'Coral Reef Survey', keywords: ['reefs'] };
        const other: SeededProject = { id: '', title: 'Desert Soil Study', keywords: ['sand'] };
        for (const project of [other, wanted]) {
          project.id = await target.seedProject(
            project.title,
            { 'a.txt': 'a' },
            { keywords: project.keywords },
          );
        }
        for (const [filter, query] of Object.entries(target.search) as [
          SearchFilter,
          (p: SeededProject) => string,
        ][]) {
          const found = await session.listResources({ search: { filter, value: query(wanted) }, page: 1 });
          const ids = found.resources.map((resource) => resource.id);
          expect({ filter, found: ids.includes(wanted.id) }).toEqual({ filter, found: true });
          if (filter !== 'author')
            expect({ filter, other: ids.includes(other.id) }).toEqual({ filter, other: false });
        }
      });
    });

    describe('detail', () => {
      it('shows a project with its children, and a file with the checksums the target keeps', async () => {
        const id = await target.seedProject('Detailed', {
          'readme.txt': 'hello',
          ...(target.folders ? { 'data/values.csv': 'a,b\n1,2\n' } : {}),
        });
        const project = await session.getResource(id);
        expect(project).toMatchObject({ kind: 'container', id, title: 'Detailed' });
        expect(Date.parse(project.dateModified)).not.toBeNaN();
        expect(project.children.map((child) => child.title).sort()).toEqual(
          target.folders ? ['data', 'readme.txt'] : ['readme.txt'],
        );
        const readme = project.children.find((child) => child.title === 'readme.txt')!;
        expect(readme).toMatchObject({ kind: 'item', container: id });
        const file = await session.getResource(readme.id);
        expect(file).toMatchObject({ kind: 'item', title: 'readme.txt', children: [] });
        for (const algorithm of ['md5', 'sha256'] as const) {
          const value = file.hashes[algorithm];
          if (value !== null)
            expect({ algorithm, value }).toEqual({
              algorithm,
              value: checksum(algorithm, Buffer.from('hello')),
            });
        }
      });

      it('answers 404 for ids it does not know, whatever their shape', async () => {
        await target.seedProject('Known', { 'a.txt': 'a' });
        for (const id of ['nope', '0', 'x:y:z', 'Zm9v', '..', '%2e%2e', 'a'.repeat(300)]) {
          expect({ id, status: await statusOf(session.getResource(id)) }).toEqual({ id, status: 404 });
        }
      });

      it('answers 403 for a resource the user may not see, and 410 for one that is gone', async () => {
        if (target.forbiddenId)
          expect(await statusOf(session.getResource(await target.forbiddenId()))).toBe(403);
        if (target.goneId) expect(await statusOf(session.getResource(await target.goneId()))).toBe(410);
      });
    });

    describe('walk', () => {
      it('yields the resource first, each folder before its content and its files before its subfolders', async () => {
        const files: SeedTree = target.folders
          ? { 'b.txt': 'b', 'a.txt': 'a', 'sub/c.txt': 'c', 'sub/deeper/d.txt': 'd', 'empty/': '' }
          : { 'b.txt': 'b', 'a.txt': 'a' };
        const id = await target.seedProject('Walked', files);
        const entries = await walked(session, id);
        expect(entries[0]).toEqual({ kind: 'folder', path: 'Walked' });
        const paths = entries.map((entry) => `${entry.kind === 'folder' ? 'D' : 'F'} ${entry.path}`);
        expect(paths).toEqual(
          target.folders
            ? [
                'D Walked',
                'F Walked/a.txt',
                'F Walked/b.txt',
                'D Walked/empty',
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
        const id = await target.seedProject('Streamed', {
          'big.bin': big,
          [target.folders ? 'docs/note.txt' : 'note.txt']: 'a note',
          'empty.txt': '',
        });
        const expected: Record<string, Buffer> = {
          'Streamed/big.bin': big,
          [target.folders ? 'Streamed/docs/note.txt' : 'Streamed/note.txt']: Buffer.from('a note'),
          'Streamed/empty.txt': Buffer.alloc(0),
        };
        let vouched = 0;
        for await (const entry of session.walk(id)) {
          if (entry.kind !== 'file') continue;
          const bytes = await readAll(await entry.open());
          expect({ path: entry.path, equal: bytes.equals(expected[entry.path]) }).toEqual({
            path: entry.path,
            equal: true,
          });
          expect(entry.size).toBe(bytes.length);
          const hashes = await entry.sourceHashes(target.connector.hashAlgorithms);
          for (const [algorithm, value] of Object.entries(hashes)) {
            expect(target.connector.hashAlgorithms).toContain(algorithm);
            expect({ path: entry.path, algorithm, value }).toEqual({
              path: entry.path,
              algorithm,
              value: checksum(algorithm, bytes),
            });
            vouched++;
          }
        }
        if (target.connector.hashAlgorithms.length > 0) expect(vouched).toBeGreaterThanOrEqual(3);
      });

      it('walks a folder and a single file from their own ids', async () => {
        const id = await target.seedProject(
          'Parts',
          target.folders ? { 'sub/x.txt': 'x' } : { 'x.txt': 'x' },
        );
        const project = await session.getResource(id);
        const child = project.children[0];
        const entries = await walked(session, child.id);
        if (target.folders) {
          expect(entries.map((entry) => entry.path)).toEqual(['sub', 'sub/x.txt']);
        } else {
          expect(entries.map((entry) => `${entry.kind} ${entry.path}`)).toEqual(['file x.txt']);
        }
      });
    });

    whenReadOnly('read-only', () => {
      it('refuses every write with 400', async () => {
        const id = await target.seedProject('Read Only', { 'a.txt': 'a' });
        expect(await statusOf(session.createProject('New'))).toBe(400);
        expect(await statusOf(session.openWriter(id, { newProject: false, message: 'x' }))).toBe(400);
        expect(await statusOf(session.setKeywords(id, ['x']))).toBe(400);
      });
    });

    whenWritable('writing', () => {
      it('makes new projects, numbering a title the user already has', async () => {
        const first = await session.createProject('Fresh Project');
        const second = await session.createProject('Fresh Project');
        expect(first).toMatchObject({ kind: 'container', container: null, title: titleOf('Fresh Project') });
        expect(second.id).not.toBe(first.id);
        expect(second.title).not.toBe(first.title);
        expect(second.title).toContain(titleOf('Fresh Project'));
        const listed = (await session.listResources({ page: 1 })).resources.map((resource) => resource.id);
        expect(listed).toEqual(expect.arrayContaining([first.id, second.id]));
      });

      it('stores files (in folders where it has them) and reports the checksums of what it stored', async () => {
        const project = await session.createProject('Written');
        const files: Record<string, string> = target.folders
          ? { 'top.txt': 'top', 'data/raw/values.csv': 'x,y\n' }
          : { 'top.txt': 'top', 'values.csv': 'x,y\n' };
        const results = await put(project.id, files, 'ignore', true);
        expect(results.map((result) => result.outcome)).toEqual(['created', 'created']);
        for (const [index, content] of Object.values(files).entries()) {
          for (const [algorithm, value] of Object.entries(results[index].hashes)) {
            expect(target.connector.hashAlgorithms).toContain(algorithm);
            expect(value).toBe(checksum(algorithm, Buffer.from(content)));
          }
        }
        const title = (await session.getResource(project.id)).title;
        const stored = await contents(session, project.id);
        expect(stored).toEqual(
          Object.fromEntries(Object.entries(files).map(([path, content]) => [`${title}/${path}`, content])),
        );
      });

      it('ignores a duplicate with ignore, and with update replaces it only when the content differs', async () => {
        const project = await session.createProject('Duplicates');
        await put(project.id, { 'same.txt': 'one', 'changed.txt': 'one' }, 'ignore', true);
        const ignored = await put(project.id, { 'same.txt': 'two', 'changed.txt': 'two' }, 'ignore');
        expect(ignored.map((result) => result.outcome)).toEqual(['ignored', 'ignored']);
        const updated = await put(project.id, { 'same.txt': 'one', 'changed.txt': 'two' }, 'update');
        expect(updated.map((result) => result.outcome)).toEqual(['ignored', 'updated']);
        const title = (await session.getResource(project.id)).title;
        expect(await contents(session, project.id)).toEqual({
          [`${title}/changed.txt`]: 'two',
          [`${title}/same.txt`]: 'one',
        });
      });

      it('commits what an earlier writer of the same job staged', async () => {
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

      const whenNewProjectsGo = options.takesBack?.newProject ? it : it.skip;
      whenNewProjectsGo('takes back a project made for a job, with what the job stored in it', async () => {
        const project = await session.createProject('Taken back');
        const writer = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
        await writer.putFile(['a.txt'], incoming('a'), 'ignore');
        await writer.abandon!();
        expect([404, 410]).toContain(await statusOf(session.getResource(project.id)));
        const listed = await session.listResources({ page: 1 });
        expect(listed.resources.map((resource) => resource.id)).not.toContain(project.id);
      });

      const whenCreatedFilesGo = options.takesBack?.createdFiles ? it : it.skip;
      whenCreatedFilesGo("takes back the files a job created in a project, a killed run's too", async () => {
        const id = await target.seedProject('Kept', { 'old.txt': 'old' });
        const before = await contents(session, id);
        const killed = await session.openWriter(id, { newProject: false, message: 'conformance' });
        const staged = (await killed.putFile(['one.txt'], incoming('1'), 'ignore')).staged;
        const resumed = await session.openWriter(id, { newProject: false, message: 'conformance' });
        resumed.restage(staged === undefined ? [] : [staged]);
        await resumed.putFile(['two.txt'], incoming('2'), 'ignore');
        await resumed.abandon!();
        expect(await contents(session, id)).toEqual(before);
      });

      it('refuses to write into a file', async () => {
        const id = await target.seedProject('Has a file', { 'f.txt': 'f' });
        const file = (await session.getResource(id)).children[0];
        expect(await statusOf(session.openWriter(file.id, { newProject: false, message: 'x' }))).toBe(400);
      });
    });

    describe('keywords', () => {
      it("reads and writes a project's own keywords", async () => {
        const id = await target.seedProject('Tagged', { 'a.txt': 'a' }, { keywords: ['soil'] });
        expect(await session.keywords(id)).toEqual(['soil']);
        if (readOnly) return;
        const stored = await session.setKeywords(id, ['soil', 'moisture']);
        expect(stored).toEqual(['soil', 'moisture']);
        expect(await session.keywords(id)).toEqual(['soil', 'moisture']);
      });
    });

    whenWritable('round trip', () => {
      it('keeps every file byte for byte through a round trip of the writer and the walk', async () => {
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
        expect(md5(await readAll(await file.open()))).toBe(md5(bytes));
      });
    });
  });
}
