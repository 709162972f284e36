import type { Connector, ConnectorSession } from '@app/connectors/connector';
import { ConnectorError } from '@app/connectors/connector-error';
import { filesystemConnector, type FilesystemOptions } from '@app/connectors/filesystem';
import { ProjectNames, SETTLED_MS, statFolder } from '@app/connectors/filesystem/project-names';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connectorContext } from '../support/connector-context';
import { dirname, join } from 'node:path';
import { statusOf } from '../support/connector-failures';

const idOf = (path: string) => Buffer.from(path, 'utf8').toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('filesystem connector', () => {
  let tmp: string;
  let root: string;

  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'fs-connector-'));
    root = join(tmp, 'data', 'root');
  });

  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  function connect(options: Partial<FilesystemOptions> = {}): Connector {
    return filesystemConnector.create(
      { root: 'root', tokens: { 'alice-token': 'alice', 'bob-token': 'bob' }, ...options },
      connectorContext({ targetName: 'lab', dataDir: join(tmp, 'data'), configDir: join(tmp, 'config') }),
    );
  }

  async function write(path: string, content: string | Buffer = 'x'): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }

  /** Sets a directory's mtime last, after its content exists (writing inside it would change it). */
  async function touch(path: string, secondsSinceEpoch: number): Promise<void> {
    await utimes(path, secondsSinceEpoch, secondsSinceEpoch);
  }

  async function openAlice(options: Partial<FilesystemOptions> = {}): Promise<ConnectorSession> {
    return connect(options).open('alice-token');
  }

  describe('tokens', () => {
    beforeEach(async () => {
      await mkdir(root, { recursive: true });
    });

    it('answers 401 for an empty token', async () => {
      expect(await statusOf(connect().open(''))).toBe(401);
    });

    it('accepts sha256: keys, in either case of hex', async () => {
      const connector = connect({
        tokens: {
          [`sha256:${sha256('s3cret')}`]: 'carol',
          [`sha256:${sha256('LOUD').toUpperCase()}`]: 'dave',
        },
      });

      expect((await connector.open('s3cret')).username).toBe('carol');
      expect((await connector.open('LOUD')).username).toBe('dave');
      expect(await statusOf(connector.open(`sha256:${sha256('s3cret')}`))).toBe(401);
    });

    it('gives a user without a directory an empty collection, creating the directory private', async () => {
      const session = await openAlice();

      expect(session.username).toBe('alice');
      expect(await session.listResources({ page: 1 })).toEqual({ resources: [], totalPages: 1, perPage: 10 });
      expect((await stat(join(root, 'alice'))).mode & 0o777).toBe(0o700);
    });
  });

  describe('collection', () => {
    const base = 1_700_000_000;

    it('pages projects newest first, counting only directories that are resources', async () => {
      for (let i = 0; i < 23; i++) {
        const project = join(root, 'alice', `Project ${String(i).padStart(2, '0')}`);
        await write(join(project, 'file.txt'));
        await touch(project, base + i * 1000);
      }
      await write(join(root, 'alice', 'loose-file.txt'));
      await mkdir(join(root, 'alice', '.presqt-jobs'));
      await mkdir(join(root, 'bob', 'Bobs'), { recursive: true });
      await symlink(join(root, 'bob', 'Bobs'), join(root, 'alice', 'Linked'));
      const session = await openAlice();

      const pages = await Promise.all([1, 2, 3, 4].map((page) => session.listResources({ page })));

      expect(pages.map((page) => page.resources.length)).toEqual([10, 10, 3, 0]);
      expect(pages.every((page) => page.totalPages === 3)).toBe(true);
      const titles = pages.flatMap((page) => page.resources.map((resource) => resource.title));
      expect(titles).toEqual(
        Array.from({ length: 23 }, (_, i) => `Project ${String(22 - i).padStart(2, '0')}`),
      );
      expect(pages[0].resources[0]).toEqual({
        kind: 'container',
        kindName: 'project',
        id: idOf('Project 22'),
        container: null,
        title: 'Project 22',
      });
    });

    it('orders projects with the same date by name, and honours per_page', async () => {
      for (const name of ['b', 'c', 'a']) {
        await mkdir(join(root, 'alice', name), { recursive: true });
        await touch(join(root, 'alice', name), base);
      }
      const session = await openAlice({ per_page: 2 });

      const first = await session.listResources({ page: 1 });
      const second = await session.listResources({ page: 2 });

      expect(first.resources.map((resource) => resource.title)).toEqual(['a', 'b']);
      expect(second.resources.map((resource) => resource.title)).toEqual(['c']);
      expect(second.totalPages).toBe(2);
    });
  });

  describe("the user's folder's names, kept between listings", () => {
    const base = 1_700_000_000;
    const alice = () => join(root, 'alice');
    const titles = async (session: ConnectorSession) =>
      (await session.listResources({ page: 1 })).resources.map((resource) => resource.title);
    let folderReads: jest.SpyInstance;

    beforeEach(async () => {
      for (const [i, name] of ['Old', 'Middle', 'New'].entries()) {
        await mkdir(join(alice(), name), { recursive: true });
        await touch(join(alice(), name), base + i);
      }
      folderReads = jest.spyOn(fs, 'opendirSync');
    });

    afterEach(() => {
      jest.restoreAllMocks();
    });

    /** Lets the listings that follow see alice's folder as changed long enough ago for its names to be kept. */
    const settle = () => {
      const now = Date.now.bind(Date);
      jest.spyOn(Date, 'now').mockImplementation(() => now() + SETTLED_MS);
    };
    /** Past the filesystem's time granularity, so that the next change gives its folder new times. */
    const nextTick = () => new Promise((resolve) => setTimeout(resolve, 20));
    const readsOf = (user: string) =>
      folderReads.mock.calls.filter(([path]) => path === join(root, user)).length;

    it('reads the folder once while it has not changed', async () => {
      settle();
      const session = await openAlice();

      expect(await titles(session)).toEqual(['New', 'Middle', 'Old']);
      expect(await titles(session)).toEqual(['New', 'Middle', 'Old']);
      expect(readsOf('alice')).toBe(1);
    });

    it("takes one stat of the user's folder for a listing right after opening, a new one for each later", async () => {
      settle();
      const folderStats = jest.spyOn(fs, 'statSync');
      const statsOfAlice = () => folderStats.mock.calls.filter(([path]) => path === alice()).length;
      const connector = connect();
      await titles(await connector.open('alice-token'));
      const session = await connector.open('alice-token');
      const opened = statsOfAlice();

      await titles(session);
      expect(statsOfAlice()).toBe(opened);
      await titles(session);
      expect(statsOfAlice()).toBe(opened + 1);
    });

    it('shows a project made, removed or renamed on disk since', async () => {
      settle();
      const session = await openAlice();
      await titles(session);

      await nextTick();
      await mkdir(join(alice(), 'Made'));
      expect(await titles(session)).toEqual(['Made', 'New', 'Middle', 'Old']);
      await nextTick();
      await rm(join(alice(), 'Made'), { recursive: true });
      expect(await titles(session)).toEqual(['New', 'Middle', 'Old']);
      await nextTick();
      await rename(join(alice(), 'Middle'), join(alice(), 'Renamed'));
      expect(await titles(session)).toEqual(['New', 'Renamed', 'Old']);
      expect(readsOf('alice')).toBe(4);
    });

    it("orders by each project's date as it is now", async () => {
      settle();
      const session = await openAlice();
      await titles(session);

      await touch(join(alice(), 'Old'), base + 10);
      expect(await titles(session)).toEqual(['Old', 'New', 'Middle']);
      await rm(join(alice(), 'New'), { recursive: true });
      await write(join(alice(), 'New'), 'now a file');
      expect(await titles(session)).toEqual(['Old', 'Middle']);
    });

    it('reads a folder again at every listing while its last change is recent', async () => {
      const session = await openAlice();

      expect(await titles(session)).toEqual(['New', 'Middle', 'Old']);
      await mkdir(join(alice(), 'Made'));
      expect(await titles(session)).toEqual(['Made', 'New', 'Middle', 'Old']);
      expect(await titles(session)).toEqual(['Made', 'New', 'Middle', 'Old']);
      expect(readsOf('alice')).toBe(3);
    });

    it('keeps at most its limit of names, least recently used first out, and no folder over its own', async () => {
      settle();
      for (const user of ['bob', 'carol']) await mkdir(join(root, user, 'Only'), { recursive: true });
      const names = new ProjectNames({ maxNames: 4, maxNamesPerFolder: 3 });
      const list = (user: string) =>
        names.forEach(join(root, user), statFolder(join(root, user)), () => undefined);

      for (const user of ['alice', 'alice', 'bob', 'alice']) await list(user);
      expect([readsOf('alice'), readsOf('bob')]).toEqual([1, 1]);
      // carol's name is a fifth: bob's, used least recently, go
      await list('carol');
      await list('bob');
      expect([readsOf('alice'), readsOf('bob'), readsOf('carol')]).toEqual([1, 2, 1]);

      await nextTick();
      await mkdir(join(alice(), 'Fourth'));
      for (let i = 0; i < 2; i++) await list('alice');
      expect(readsOf('alice')).toBe(3);
    });
  });

  describe('search', () => {
    let session: ConnectorSession;
    const titles = async (filter: 'general' | 'title' | 'id' | 'author' | 'keywords', value: string) =>
      (await session.listResources({ search: { filter, value }, page: 1 })).resources.map(
        (resource) => resource.title,
      );

    beforeEach(async () => {
      const alice = join(root, 'alice');
      await write(
        join(alice, 'Ocean Temperatures', 'PRESQT_FTS_METADATA.json'),
        JSON.stringify({
          allKeywords: ['Oceanography', 'climate'],
          extra_metadata: {
            creators: [{ first_name: 'Ada', last_name: 'Lovelace', ORCID: '0000-0002-1825-0097' }],
          },
        }),
      );
      await write(join(alice, 'Soil Samples', '.presqt-keywords.json'), JSON.stringify(['Geology', 'soil']));
      await write(join(alice, 'Soil Samples', 'data', 'nested.csv'));
      await write(join(alice, 'Broken', 'PRESQT_FTS_METADATA.json'), '{ not json');
      await write(join(alice, 'Broken', '.presqt-keywords.json'), JSON.stringify({ keywords: ['climate'] }));
      await write(
        join(alice, 'Huge', '.presqt-keywords.json'),
        JSON.stringify(['climate', 'x'.repeat(1 << 20)]),
      );
      await write(join(root, 'bob', 'Private', '.presqt-keywords.json'), JSON.stringify(['climate']));
      await mkdir(join(alice, 'Linked Store'));
      await symlink(
        join(root, 'bob', 'Private', '.presqt-keywords.json'),
        join(alice, 'Linked Store', '.presqt-keywords.json'),
      );
      const order = ['Ocean Temperatures', 'Soil Samples', 'Broken', 'Huge', 'Linked Store'];
      for (const [i, name] of order.entries()) await touch(join(alice, name), 1_700_000_000 - i);
      session = await openAlice();
    });

    it('title: case-insensitive substring of the project name', async () => {
      expect(await titles('title', 'SOIL')).toEqual(['Soil Samples']);
      expect(await titles('title', 'e')).toEqual([
        'Ocean Temperatures',
        'Soil Samples',
        'Broken',
        'Huge',
        'Linked Store',
      ]);
      expect(await titles('title', 'nested')).toEqual([]);
    });

    it('id: the one resource at any depth, with its container', async () => {
      const nested = await session.listResources({
        search: { filter: 'id', value: idOf('Soil Samples/data/nested.csv') },
        page: 1,
      });
      expect(nested).toEqual({
        resources: [
          {
            kind: 'item',
            kindName: 'file',
            id: idOf('Soil Samples/data/nested.csv'),
            container: idOf('Soil Samples/data'),
            title: 'nested.csv',
          },
        ],
        totalPages: 1,
        perPage: 10,
      });
      expect(await titles('id', idOf('Soil Samples'))).toEqual(['Soil Samples']);
      expect(await titles('id', idOf('Soil Samples/missing'))).toEqual([]);
      expect(await titles('id', 'not an id')).toEqual([]);
      expect(await titles('id', idOf('Private'))).toEqual([]);
      expect(await titles('id', idOf('../bob/Private'))).toEqual([]);
    });

    it('author: the owner name or a creator name or ORCID', async () => {
      expect(await titles('author', 'ALI')).toHaveLength(5);
      expect(await titles('author', 'ada love')).toEqual(['Ocean Temperatures']);
      expect(await titles('author', '1825-0097')).toEqual(['Ocean Temperatures']);
      expect(await titles('author', 'bob')).toEqual([]);
    });

    it('keywords: from the metadata file and from the target keyword store, ignoring bad files', async () => {
      expect(await titles('keywords', 'oceano')).toEqual(['Ocean Temperatures']);
      expect(await titles('keywords', 'GEOLOGY')).toEqual(['Soil Samples']);
      // Only Ocean Temperatures really has it: Broken's files are invalid, Huge's is over the size cap and
      // Linked Store's is a symlink to another user's file.
      expect(await titles('keywords', 'climate')).toEqual(['Ocean Temperatures']);
      expect(await titles('keywords', 'Soil Samples')).toEqual([]);
    });

    it('general: title, author or keywords', async () => {
      expect(await titles('general', 'huge')).toEqual(['Huge']);
      expect(await titles('general', 'lovelace')).toEqual(['Ocean Temperatures']);
      expect(await titles('general', 'soil')).toEqual(['Soil Samples']);
      expect(await titles('general', 'geology')).toEqual(['Soil Samples']);
      expect(await titles('general', 'nothing matches this')).toEqual([]);
    });

    it('paginates search results with the per_page option', async () => {
      const second = await (
        await openAlice({ per_page: 3 })
      ).listResources({
        search: { filter: 'title', value: 'e' },
        page: 2,
      });

      expect(second.resources.map((resource) => resource.title)).toEqual(['Huge', 'Linked Store']);
      expect(second.totalPages).toBe(2);
      expect(second.perPage).toBe(3);
    });
  });

  describe('detail', () => {
    const content = 'col1,col2\n1,2\n';

    beforeEach(async () => {
      const project = join(root, 'alice', 'My Project');
      await write(join(project, 'zeta.txt'), '12345');
      await write(join(project, 'Alpha.txt'), '1');
      await write(join(project, 'sub dir', 'naïve 文件.csv'), content);
      await write(join(project, 'sub dir', 'deeper', 'more.bin'), Buffer.alloc(1000));
      await write(join(project, 'data', 'x.txt'), 'abc');
      await write(join(project, '.presqt-keywords.json'), '["k"]');
      await write(join(root, 'bob', 'Secret', 'secret.txt'), 'TOP SECRET');
      await symlink(join(root, 'bob', 'Secret', 'secret.txt'), join(project, 'link.txt'));
      await symlink(join(root, 'bob', 'Secret'), join(project, 'linkdir'));
    });

    it('round-trips ids of nested paths with spaces and unicode', async () => {
      const session = await openAlice();
      const path = 'My Project/sub dir/naïve 文件.csv';

      const file = await session.getResource(idOf(path));

      expect(idOf(path)).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(file.title).toBe('naïve 文件.csv');
      expect(file.extra.path).toBe(`/${path}`);
      const folder = await session.getResource(idOf('My Project/sub dir'));
      expect(folder.children.map((child) => child.id)).toContain(file.id);
      expect(Buffer.from(file.id, 'base64url').toString('utf8')).toBe(path);
    });

    it('gives a file its md5, sha256, size and path', async () => {
      const path = 'My Project/sub dir/naïve 文件.csv';
      const when = new Date('2021-03-04T05:06:07.000Z');
      await utimes(join(root, 'alice', path), when, when);
      const session = await openAlice();

      const file = await session.getResource(idOf(path));

      const { dateCreated, ...rest } = file;
      expect(dateCreated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(rest).toEqual({
        kind: 'item',
        kindName: 'file',
        id: idOf(path),
        title: 'naïve 文件.csv',
        dateModified: '2021-03-04T05:06:07.000Z',
        hashes: {
          md5: createHash('md5').update(content).digest('hex'),
          sha256: createHash('sha256').update(content).digest('hex'),
        },
        extra: { path: `/${path}`, size: Buffer.byteLength(content), provider: 'filesystem' },
        children: [],
      });
    });

    it('hashes the new content once a file changes', async () => {
      const path = join(root, 'alice', 'My Project', 'Alpha.txt');
      const session = await openAlice();
      const before = await session.getResource(idOf('My Project/Alpha.txt'));

      await writeFile(path, 'changed');
      await utimes(path, 1_600_000_000, 1_600_000_000);
      const after = await session.getResource(idOf('My Project/Alpha.txt'));

      expect(before.hashes.sha256).toBe(sha256('1'));
      expect(after.hashes.sha256).toBe(sha256('changed'));
    });

    it('gives a project its children in order and the size of all descendant files', async () => {
      const session = await openAlice();
      const projectId = idOf('My Project');

      const project = await session.getResource(projectId);

      expect(project).toMatchObject({
        kind: 'container',
        kindName: 'project',
        title: 'My Project',
        hashes: { md5: null, sha256: null },
        extra: { path: '/My Project', size: 5 + 1 + Buffer.byteLength(content) + 1000 + 3, file_count: 5 },
      });
      expect(project.children).toEqual([
        {
          kind: 'container',
          kindName: 'folder',
          id: idOf('My Project/data'),
          container: projectId,
          title: 'data',
        },
        {
          kind: 'container',
          kindName: 'folder',
          id: idOf('My Project/sub dir'),
          container: projectId,
          title: 'sub dir',
        },
        {
          kind: 'item',
          kindName: 'file',
          id: idOf('My Project/Alpha.txt'),
          container: projectId,
          title: 'Alpha.txt',
        },
        {
          kind: 'item',
          kindName: 'file',
          id: idOf('My Project/zeta.txt'),
          container: projectId,
          title: 'zeta.txt',
        },
      ]);
    });

    it('names a project or a file in a summary, without its children, totals or checksums', async () => {
      const session = await openAlice();
      const project = await session.getResource(idOf('My Project'), { summary: true });
      expect(project).toMatchObject({ kind: 'container', kindName: 'project', title: 'My Project' });
      expect(project).toMatchObject({ extra: { path: '/My Project' }, children: [] });
      expect(project.extra).not.toHaveProperty('file_count');
      const file = await session.getResource(idOf('My Project/Alpha.txt'), { summary: true });
      expect(file).toMatchObject({ kind: 'item', title: 'Alpha.txt', hashes: { md5: null, sha256: null } });
      expect(await statusOf(session.getResource(idOf('My Project/none.txt'), { summary: true }))).toBe(404);
      expect(await statusOf(session.getResource(idOf('../bob'), { summary: true }))).toBe(404);
    });

    // Root reads everything, so this only runs as an ordinary user.
    (process.getuid?.() === 0 ? it.skip : it)('answers 403 where the filesystem denies access', async () => {
      const locked = join(root, 'alice', 'My Project', 'sub dir');
      const file = join(root, 'alice', 'My Project', 'zeta.txt');
      const session = await openAlice();
      await chmod(locked, 0o000);
      await chmod(file, 0o000);
      try {
        expect(await statusOf(session.getResource(idOf('My Project/sub dir/naïve 文件.csv')))).toBe(403);
        expect(await statusOf(session.getResource(idOf('My Project/zeta.txt')))).toBe(403);
      } finally {
        await chmod(locked, 0o755);
        await chmod(file, 0o644);
      }
    });

    it('answers 404 for every id that reaches outside the user directory, without leaking data', async () => {
      await symlink(join(root, 'bob'), join(root, 'alice', 'Evil'));
      await write(join(root, 'alice', 'toplevel.txt'), 'not a resource');
      // Links are never followed, even where they stay inside the user's own directory.
      await symlink(join(root, 'alice', 'My Project', 'data'), join(root, 'alice', 'My Project', 'selflink'));
      const session = await openAlice();
      const canonical = idOf('My Project');
      // Same bytes as the canonical id, but with the unused trailing bits set.
      const nonCanonical =
        canonical.slice(0, -1) + String.fromCharCode(canonical.charCodeAt(canonical.length - 1) + 1);
      expect(Buffer.from(nonCanonical, 'base64url').toString('utf8')).toBe('My Project');
      const crafted = [
        idOf('..'),
        idOf('../bob/Secret/secret.txt'),
        idOf('../bob'),
        idOf('My Project/../../bob/Secret'),
        idOf('/etc/passwd'),
        idOf(join(root, 'bob', 'Secret', 'secret.txt')),
        idOf('.'),
        idOf('./My Project'),
        idOf('My Project/./zeta.txt'),
        idOf('My Project//zeta.txt'),
        idOf('My Project/'),
        idOf('My Project\\..\\..\\bob'),
        idOf('My Project/zeta.txt\0'),
        idOf('Evil'),
        idOf('Evil/Secret/secret.txt'),
        idOf('My Project/link.txt'),
        idOf('My Project/linkdir/secret.txt'),
        idOf('My Project/selflink'),
        idOf('My Project/selflink/x.txt'),
        idOf('My Project/.presqt-keywords.json'),
        idOf('.presqt-keywords.json'),
        idOf('toplevel.txt'),
        idOf('Missing Project'),
        'garbage!!',
        'a.b',
        `${canonical}=`,
        nonCanonical,
        Buffer.from([0xff, 0xfe, 0x2f]).toString('base64url'),
        '',
      ];

      for (const id of crafted) {
        const error = await session.getResource(id).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect({ id, status: (error as ConnectorError | undefined)?.status }).toEqual({ id, status: 404 });
        expect((error as Error).message).not.toContain('SECRET');
      }
      const listed = await (await openAlice({ per_page: 50 })).listResources({ page: 1 });
      expect(listed.resources.map((resource) => resource.title)).toEqual(['My Project']);
    });
  });

  describe('seed and status', () => {
    const seed = () => join(tmp, 'config', 'seed');

    beforeEach(async () => {
      await write(join(seed(), 'alice', 'Demo', 'data', 'a.csv'), 'a,b\n');
      await write(join(seed(), 'bob', 'Other', 'b.txt'), 'b');
    });

    it('copies the seed on first use, once, and concurrent first uses end with one complete copy', async () => {
      const first = connect({ seed: 'seed' });
      const second = connect({ seed: 'seed' });

      const [alice, bob, status] = await Promise.all([
        first.open('alice-token'),
        second.open('bob-token'),
        second.status(),
      ]);

      expect(status).toEqual({ ok: true, detail: 'The root directory exists and is readable.' });
      expect(await readFile(join(root, 'alice', 'Demo', 'data', 'a.csv'), 'utf8')).toBe('a,b\n');
      expect((await alice.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual(['Demo']);
      expect((await bob.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual(['Other']);
      expect(await readdir(dirname(root))).toEqual(['root']);

      // A user's deletion stays deleted, for this process and after a restart.
      await rm(join(root, 'alice', 'Demo'), { recursive: true });
      await first.open('alice-token');
      const restarted = await connect({ seed: 'seed' }).open('alice-token');
      expect(await restarted.listResources({ page: 1 })).toEqual({
        resources: [],
        totalPages: 1,
        perPage: 10,
      });
    });

    it('makes a user directory removed while the process runs again, and refuses one made a file', async () => {
      await mkdir(root, { recursive: true });
      const connector = connect();
      await (await connector.open('alice-token')).createProject('Kept');
      await rm(join(root, 'alice'), { recursive: true });
      const again = await connector.open('alice-token');
      expect((await again.listResources({ page: 1 })).resources).toEqual([]);
      await rm(join(root, 'alice'), { recursive: true });
      await write(join(root, 'alice'), 'not a folder');
      expect(await statusOf(connector.open('alice-token'))).toBe(503);
    });

    it('reports a missing root, a root that is a file, and a seed that cannot be copied', async () => {
      expect(await connect().status()).toEqual({ ok: false, detail: 'The root directory does not exist.' });
      expect(await statusOf(connect().open('alice-token'))).toBe(503);

      const missingSeed = await connect({ seed: 'no-such-seed' }).status();
      expect(missingSeed).toEqual({
        ok: false,
        detail: 'Copying the seed data into the root directory failed (ENOENT).',
      });
      expect(await readdir(dirname(root))).toEqual([]);

      await write(root, 'a file');
      expect(await connect().status()).toEqual({ ok: false, detail: 'The root path is not a directory.' });
    });
  });

  describe('validateOptions', () => {
    const validate = (options: unknown) => filesystemConnector.validateOptions(options);

    it('accepts a complete entry', () => {
      expect(
        validate({
          root: 'r',
          tokens: { t: 'alice', [`sha256:${sha256('x')}`]: 'bob.b-c_d' },
          seed: 's',
          per_page: 5,
        }),
      ).toEqual([]);
    });

    it('names each problem, never quoting a token', () => {
      expect(validate(null)).toEqual(['options must be an object']);
      expect(validate({ tokens: {} })).toEqual([
        'options.root must be a non-empty string',
        'options.tokens must be a non-empty object mapping each token to a user name',
      ]);
      const problems = validate({
        root: ' ',
        seed: '',
        per_page: 1.5,
        perPage: 3,
        tokens: {
          'plain-secret': '../bob',
          'sha256:abc': 'ok',
          other: 7,
          [`sha256:${sha256('plain-secret')}`]: 'eve',
        },
      });
      expect(problems).toEqual([
        'options.perPage is not a known option (root, tokens, seed, per_page)',
        'options.root must be a non-empty string',
        'options.seed must be a non-empty string when present',
        'options.per_page must be a positive integer when present',
        'options.tokens entry #1 must map to a user name matching /^[A-Za-z0-9][A-Za-z0-9._-]*$/, got "../bob"',
        "options.tokens entry #2: a key starting with 'sha256:' must be followed by 64 hex digits",
        'options.tokens entry #3 must map to a user name matching /^[A-Za-z0-9][A-Za-z0-9._-]*$/, got 7',
        'options.tokens entry #4 names the same token as an earlier entry, for a different user',
      ]);
      expect(problems.join('\n')).not.toContain('plain-secret');
      expect(validate({ root: 'r', tokens: [] })).toEqual([
        'options.tokens must be a non-empty object mapping each token to a user name',
      ]);
      expect(validate({ root: 'r', tokens: { t: 'a' }, per_page: 0 })).toEqual([
        'options.per_page must be a positive integer when present',
      ]);
    });
  });
});
