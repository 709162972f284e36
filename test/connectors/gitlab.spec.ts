import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connector, ConnectorSession, RemoteFile, RemoteFolder } from '@app/connectors';
import { gitlabConnector, type GitlabOptions } from '@app/connectors/gitlab';
import { FakeServer } from '../fakes/fake-server';
import { FakeGitlab } from '../fakes/gitlab/fake-gitlab';
import { connectorContext } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const blobId = (bytes: string | Buffer) => {
  const buffer = Buffer.from(bytes);
  return createHash('sha1').update(`blob ${buffer.length}\0`).update(buffer).digest('hex');
};
const pathId = (projectId: number, path: string) => `${projectId}:${Buffer.from(path).toString('base64url')}`;

async function walked(session: ConnectorSession, id: string): Promise<(RemoteFile | RemoteFolder)[]> {
  const entries: (RemoteFile | RemoteFolder)[] = [];
  for await (const entry of session.walk(id)) entries.push(entry);
  return entries;
}

describe('gitlab connector', () => {
  let gitlab: FakeGitlab;
  let storage: FakeServer;

  beforeAll(async () => {
    gitlab = await new FakeGitlab().start();
    storage = await new FakeServer('object storage').start();
    gitlab.useStorage(storage);
    gitlab.addUser('alice', 'alice-token');
    gitlab.addUser('bob', 'bob-token');
  });

  beforeEach(() => {
    gitlab.reset();
    storage.requests.length = 0;
  });

  afterAll(async () => {
    await gitlab.stop();
    await storage.stop();
  });

  function connect(options: Partial<GitlabOptions> = {}): Connector {
    return gitlabConnector.create({ api_url: gitlab.url, per_page: 5, ...options }, connectorContext());
  }

  const openAlice = (options: Partial<GitlabOptions> = {}) => connect(options).open('alice-token');

  /** The requests the fake received for a path (below /api/v4), as path and query. */
  function requestsTo(pattern: RegExp): URL[] {
    return gitlab.server.requests
      .map((request) => new URL(request.url, 'http://fake'))
      .filter((url) => pattern.test(url.pathname));
  }

  describe('options', () => {
    it('takes the defaults and each option in range, and names every problem', () => {
      const validate = (options: unknown) => gitlabConnector.validateOptions(options);
      expect(validate({})).toEqual([]);
      expect(
        validate({
          api_url: 'https://gitlab.example.org/api/v4',
          visibility: 'internal',
          per_page: 100,
          commit_batch_bytes: 1,
        }),
      ).toEqual([]);
      expect(validate('gitlab.com')).toEqual(['options must be an object']);
      const problems = validate({
        api_url: 'https://user:secret@gitlab.example.org/api/v4',
        visibility: 'secret',
        per_page: 101,
        commit_batch_bytes: 0,
        token: 'glpat-abcdef',
      });
      expect(problems).toEqual([
        'options.token is not a known option (api_url, visibility, per_page, commit_batch_bytes)',
        'options.api_url must not carry credentials: the token comes with each request',
        'options.visibility must be one of private, internal, public',
        'options.per_page must be an integer from 1 to 100',
        'options.commit_batch_bytes must be an integer from 1 to 188743680',
      ]);
      expect(problems.join(' ')).not.toContain('secret@');
      expect(problems.join(' ')).not.toContain('glpat-abcdef');
      expect(validate({ api_url: 'ftp://gitlab.example.org' })).toEqual([
        'options.api_url must be an http or https URL',
      ]);
      expect(validate({ api_url: 'https://gitlab.example.org/api/v4?x=1' })).toEqual([
        'options.api_url must not have a query or a fragment',
      ]);
      expect(validate({ per_page: 2.5 })).toEqual(['options.per_page must be an integer from 1 to 100']);
      // a commit's JSON (4/3 of its files) must stay below the 250 MiB an omnibus GitLab's nginx takes
      expect(validate({ commit_batch_bytes: 180 * 2 ** 20 })).toEqual([]);
      expect(validate({ commit_batch_bytes: 200 * 2 ** 20 })).toEqual([
        'options.commit_batch_bytes must be an integer from 1 to 188743680',
      ]);
    });

    it('makes projects with the visibility the options give, private by default', async () => {
      const made = await (await openAlice()).createProject('Hidden');
      const shared = await (await openAlice({ visibility: 'public' })).createProject('Shared');
      expect(gitlab.project(made.id).visibility).toBe('private');
      expect(gitlab.project(shared.id).visibility).toBe('public');
    });
  });

  describe('tokens and status', () => {
    it('checks the token with GET /user, sending it as PRIVATE-TOKEN to GitLab only', async () => {
      const session = await openAlice();
      expect(session.username).toBe('alice');
      const [user] = gitlab.server.requests;
      expect(user.url).toBe('/api/v4/user');
      expect(user.headers['private-token']).toBe('alice-token');
      expect(await failureOf(connect().open('nobody-token'))).toEqual({
        status: 401,
        message: 'Token is invalid. Response returned a 401 status code.',
      });
      // a token no header can carry is refused without a request
      const before = gitlab.server.requests.length;
      expect((await failureOf(connect().open('bad\ntoken'))).status).toBe(401);
      expect((await failureOf(connect().open(''))).status).toBe(401);
      expect(gitlab.server.requests).toHaveLength(before);
    });

    it('reports whether GitLab answers, without a token', async () => {
      expect(await connect().status()).toEqual({ ok: true, detail: 'Connected to server successfully' });
      expect(gitlab.server.requests.at(-1)).toMatchObject({ url: '/api/v4/version' });
      expect(gitlab.server.requests.at(-1)!.headers['private-token']).toBeUndefined();
      const down = gitlabConnector.create({ api_url: 'http://127.0.0.1:9/api/v4' }, connectorContext());
      expect(await down.status()).toEqual({ ok: false, detail: 'Could not connect to GitLab: ECONNREFUSED' });
    });
  });

  describe('ids', () => {
    it('gives a project its numeric id and a path <project id>:<base64url>, and takes them back', async () => {
      const project = gitlab.seedProject('alice', 'Ids', {
        files: { LICENSE: 'MIT', 'data.v2/values.csv': '1,2', 'notes/a b+c.txt': 'x' },
      });
      const session = await openAlice();
      const detail = await session.getResource(String(project.id));
      expect(detail.children.map((child) => [child.kindName, child.title, child.id])).toEqual([
        ['folder', 'data.v2', pathId(project.id, 'data.v2')],
        ['folder', 'notes', pathId(project.id, 'notes')],
        ['file', 'LICENSE', pathId(project.id, 'LICENSE')],
      ]);
      for (const child of detail.children) {
        expect(child.id).not.toMatch(/[./?#%]/);
        expect(child.container).toBe(String(project.id));
        expect(await session.getResource(child.id)).toMatchObject({ id: child.id, title: child.title });
      }
      // a dot-less file is a file and a dotted folder a folder: the tree entry's type decides
      expect(await session.getResource(pathId(project.id, 'LICENSE'))).toMatchObject({ kind: 'item' });
      const folder = await session.getResource(pathId(project.id, 'data.v2'));
      expect(folder).toMatchObject({ kind: 'container', kindName: 'folder' });
      expect(folder.children).toEqual([
        {
          kind: 'item',
          kindName: 'file',
          id: pathId(project.id, 'data.v2/values.csv'),
          container: pathId(project.id, 'data.v2'),
          title: 'values.csv',
        },
      ]);
      const spaced = await session.getResource(pathId(project.id, 'notes/a b+c.txt'));
      expect(spaced.hashes.sha256).toBe(sha256('x'));
    });

    it('answers 404, never 500, for ids no resource can have, mostly without asking GitLab', async () => {
      const project = gitlab.seedProject('alice', 'Known', { files: { 'a.txt': 'a' } });
      const session = await openAlice();
      const before = gitlab.server.requests.length;
      const malformed = [
        '0',
        '007',
        '12345678901234567890',
        `${project.id}:`,
        `${project.id}:YS50eHQ=`, // padded: not the canonical spelling
        `${project.id}:${Buffer.from('../a.txt').toString('base64url')}`,
        `${project.id}:${Buffer.from('a//b').toString('base64url')}`,
        `${project.id}:${Buffer.from('/a.txt').toString('base64url')}`,
        `${project.id}:a.txt`,
        `${project.id}:${Buffer.from('a.txt').toString('base64url')}:x`,
      ];
      for (const id of malformed)
        expect({ id, ...(await failureOf(session.getResource(id))) }).toMatchObject({ id, status: 404 });
      expect(gitlab.server.requests).toHaveLength(before);
      for (const id of ['999999', pathId(project.id, 'missing.txt'), pathId(project.id, 'a.txt/deeper')])
        expect({ id, status: (await failureOf(session.getResource(id))).status }).toEqual({
          id,
          status: 404,
        });
    });
  });

  describe('listing', () => {
    it("pages the user's projects as GitLab pages them, newest activity first, skipping those being deleted", async () => {
      for (let i = 1; i <= 12; i++)
        gitlab.seedProject('alice', `Project ${i}`, { files: { 'a.txt': String(i) } });
      gitlab.seedProject('alice', 'Leaving', { files: { 'a.txt': 'x' }, markedForDeletion: true });
      gitlab.seedProject('bob', 'Not Mine', { files: { 'a.txt': 'x' }, visibility: 'public' });
      const session = await openAlice();
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(await session.listResources({ page }));
      expect(pages.map((page) => page.totalPages)).toEqual([3, 3, 3]);
      expect(pages.flatMap((page) => page.resources.map((resource) => resource.title))).toEqual(
        Array.from({ length: 12 }, (_, i) => `Project ${12 - i}`),
      );
      const asked = requestsTo(/^\/api\/v4\/projects$/).map((url) => Object.fromEntries(url.searchParams));
      expect(asked).toEqual(
        [1, 2, 3].map((page) => ({
          membership: 'true',
          order_by: 'last_activity_at',
          sort: 'desc',
          per_page: '5',
          page: String(page),
        })),
      );
    });

    it('counts pages by X-Next-Page where GitLab leaves the totals out (above 10,000 results)', async () => {
      gitlab.settings.countLimit = 5;
      for (let i = 1; i <= 12; i++) gitlab.seedProject('alice', `Many ${i}`);
      const session = await openAlice();
      const totals = [];
      for (let page = 1; page <= 3; page++) totals.push((await session.listResources({ page })).totalPages);
      expect(totals).toEqual([2, 3, 3]);
      expect(gitlab.server.requests.some((request) => request.url.includes('page=4'))).toBe(false);
    });

    it("asks GitLab for each search filter's query", async () => {
      const reef = gitlab.seedProject('alice', 'Coral Reef', { files: { 'a.txt': 'a' }, topics: ['oceans'] });
      gitlab.seedProject('alice', 'Desert Soil', { files: { 'a.txt': 'a' }, topics: ['sand'] });
      gitlab.seedProject('bob', 'Bob Reef', { visibility: 'public', files: { 'a.txt': 'a' } });
      const session = await openAlice();
      const titles = async (filter: 'general' | 'title' | 'author' | 'keywords' | 'id', value: string) =>
        (await session.listResources({ page: 1, search: { filter, value } })).resources.map((r) => r.title);

      expect(await titles('general', 'reef')).toEqual(['Coral Reef']);
      expect(await titles('title', 'coral')).toEqual(['Coral Reef']);
      expect(await titles('keywords', 'oceans')).toEqual(['Coral Reef']);
      expect(await titles('author', 'bob')).toEqual(['Bob Reef']);
      expect(await titles('author', 'nobody')).toEqual([]);
      expect(await titles('id', String(reef.id))).toEqual(['Coral Reef']);
      expect(await titles('id', pathId(reef.id, 'a.txt'))).toEqual(['a.txt']);
      expect(await titles('id', '424242')).toEqual([]);
      expect(await titles('id', 'not-an-id')).toEqual([]);

      const searches = requestsTo(/^\/api\/v4\/projects$/).map((url) => [
        url.searchParams.get('search'),
        url.searchParams.get('topic'),
      ]);
      expect(searches).toEqual([
        ['reef', null],
        ['coral', null],
        [null, 'oceans'],
      ]);
      expect(requestsTo(/\/users\//).map((url) => url.pathname)).toEqual([
        '/api/v4/users/bob/projects',
        '/api/v4/users/nobody/projects',
      ]);
      expect(requestsTo(/\/projects\/\d+$/).map((url) => url.pathname)).toEqual([
        `/api/v4/projects/${reef.id}`,
        `/api/v4/projects/${reef.id}`,
        '/api/v4/projects/424242',
      ]);
    });
  });

  describe('detail', () => {
    it("dates a project by GitLab's dates and a file by its last commit, with its sha256", async () => {
      const project = gitlab.seedProject('alice', 'Dated', { files: { 'a.txt': 'first' }, topics: ['soil'] });
      const session = await openAlice();
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'second' });
      await writer.putFile(['b.txt'], countedFile('second'), 'ignore');
      await writer.commit();
      const [first, second] = gitlab.project(project.id).commits;
      const detail = await session.getResource(String(project.id));
      expect(detail).toMatchObject({
        kind: 'container',
        kindName: 'project',
        title: 'Dated',
        dateCreated: project.createdAt,
        dateModified: second.committedDate,
        extra: { default_branch: 'main', topics: ['soil'], visibility: 'private' },
      });
      const a = await session.getResource(pathId(project.id, 'a.txt'));
      expect(a).toMatchObject({
        kind: 'item',
        kindName: 'file',
        dateModified: first.committedDate,
        hashes: { md5: null, sha256: sha256('first') },
        extra: { path: '/a.txt', size: 5, blob_id: blobId('first'), last_commit_id: first.id },
      });
      expect((await session.getResource(pathId(project.id, 'b.txt'))).dateModified).toBe(
        second.committedDate,
      );
    });

    it('shows an empty project (no commit yet) with no children, and walks it as its folder alone', async () => {
      const made = await (await openAlice()).createProject('Empty');
      const session = await openAlice();
      expect((await session.getResource(made.id)).children).toEqual([]);
      expect(await walked(session, made.id)).toEqual([{ kind: 'folder', path: 'Empty' }]);
    });
  });

  describe('walking', () => {
    it('follows the Link header of keyset-paged trees, and X-Next-Page where a GitLab pages by number', async () => {
      const files = Object.fromEntries(
        Array.from({ length: 230 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, `v${i}`]),
      );
      const project = gitlab.seedProject('alice', 'Big Folder', { files });
      const session = await openAlice();
      const expected = [
        'Big Folder',
        'Big Folder/many',
        ...Object.keys(files).map((path) => `Big Folder/${path}`),
      ];

      expect((await walked(session, String(project.id))).map((entry) => entry.path)).toEqual(expected);
      const keyset = requestsTo(/\/repository\/tree$/).filter(
        (url) => url.searchParams.get('path') === 'many',
      );
      expect(keyset.map((url) => url.searchParams.has('page_token'))).toEqual([false, true, true]);
      expect(keyset.every((url) => url.searchParams.get('pagination') === 'keyset')).toBe(true);

      gitlab.settings.keysetTrees = false;
      gitlab.server.requests.length = 0;
      expect((await walked(session, String(project.id))).map((entry) => entry.path)).toEqual(expected);
      const offset = requestsTo(/\/repository\/tree$/).filter(
        (url) => url.searchParams.get('path') === 'many',
      );
      expect(offset.map((url) => url.searchParams.get('page'))).toEqual([null, '2', '3']);
    });

    it('reads every file at the commit the walk started from', async () => {
      const project = gitlab.seedProject('alice', 'Moving', { files: { 'a.txt': 'old' } });
      const session = await openAlice();
      const walk = session.walk(String(project.id))[Symbol.asyncIterator]();
      await walk.next(); // the project
      const file = (await walk.next()).value as RemoteFile;
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'change' });
      await writer.putFile(['a.txt'], countedFile('new!'), 'update');
      await writer.commit();
      expect((await readAll(await file.open())).toString()).toBe('old');
      expect(await file.sourceHashes(['git-blob-sha1', 'sha256'])).toEqual({
        'git-blob-sha1': blobId('old'),
        sha256: sha256('old'),
      });
      const [first] = gitlab.project(project.id).commits;
      const raw = requestsTo(/\/raw$/);
      expect(raw.map((url) => url.searchParams.get('ref'))).toEqual([first.id]);
    });

    it('never sends the token to the storage a download is redirected to', async () => {
      gitlab.settings.redirectDownloads = true;
      const project = gitlab.seedProject('alice', 'Stored', { files: { 'big.bin': 'stored bytes' } });
      const session = await openAlice();
      const [, file] = await walked(session, String(project.id));
      expect((await readAll(await (file as RemoteFile).open())).toString()).toBe('stored bytes');
      expect(storage.requests).toHaveLength(1);
      expect(storage.requests[0].headers['private-token']).toBeUndefined();
      expect(
        gitlab.server.requests.every((request) => request.headers['private-token'] === 'alice-token'),
      ).toBe(true);
    });

    it('fails a download cut short rather than passing on part of the file', async () => {
      const bytes = Buffer.alloc(1 << 20, 7);
      const project = gitlab.seedProject('alice', 'Cut', { files: { 'big.bin': bytes } });
      const session = await openAlice();
      const [, file] = await walked(session, String(project.id));
      gitlab.server.inject({ kind: 'cut', afterBytes: 100_000, match: { path: /\/raw$/ } });
      await expect(readAll(await (file as RemoteFile).open())).rejects.toThrow();
    });
  });

  describe('faults', () => {
    it('waits as a 429 asks (Retry-After) and carries on', async () => {
      gitlab.seedProject('alice', 'Patient');
      const session = await openAlice();
      gitlab.server.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        match: { path: /\/projects$/ },
      });
      const started = Date.now();
      const page = await session.listResources({ page: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(page.resources.map((resource) => resource.title)).toEqual(['Patient']);
      expect(requestsTo(/^\/api\/v4\/projects$/)).toHaveLength(2);
    });

    it('gives up on a GitLab that keeps failing, with an error that names it', async () => {
      const session = await openAlice();
      gitlab.server.inject({
        kind: 'status',
        status: 503,
        times: 20,
        body: { message: '503 Service Unavailable' },
        match: { path: /\/projects$/ },
      });
      expect(await failureOf(session.listResources({ page: 1 }))).toEqual({
        status: 502,
        message: 'GitLab answered 503: 503 Service Unavailable (/api/v4/projects).',
      });
    });
  });

  describe('writing', () => {
    it('names a new project as GitLab allows, numbering a taken one', async () => {
      const session = await openAlice();
      const first = await session.createProject('Survey (final) #1');
      const second = await session.createProject('Survey (final) #1');
      const odd = await session.createProject('...');
      expect([first.title, second.title, odd.title]).toEqual([
        'Survey final 1',
        'Survey final 1 2',
        'Untitled',
      ]);
      expect([first, second].map((made) => gitlab.project(made.id).path)).toEqual([
        'survey-final-1',
        'survey-final-1-2',
      ]);
      const created = gitlab.server.requests.filter((request) => request.method === 'POST');
      expect(created).toHaveLength(4);
    });

    it('commits everything put in one commit, streamed with its length, into an empty repository too', async () => {
      gitlab.settings.instanceDefaultBranch = null;
      const session = await openAlice();
      const made = await session.createProject('One Commit');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'PresQT Upload' });
      const results = [];
      for (const [path, content] of [
        ['a.txt', 'a'],
        ['data/b.csv', 'b'],
        ['data/deep/c.bin', Buffer.alloc(70_000, 1)],
      ] as const)
        results.push(await writer.putFile(path.split('/'), countedFile(content), 'ignore'));
      expect(gitlab.project(made.id).commits).toHaveLength(0);
      await writer.commit();
      const project = gitlab.project(made.id);
      expect(project.commits).toHaveLength(1);
      expect(project.commits[0].message).toBe('PresQT Upload');
      expect(project.branch).toBe('main');
      expect(Object.keys(gitlab.filesOf(made.id)).sort()).toEqual(['a.txt', 'data/b.csv', 'data/deep/c.bin']);
      expect(results.map((result) => [result.outcome, result.path, result.hashes])).toEqual([
        ['created', '/One Commit/a.txt', { 'git-blob-sha1': blobId('a'), sha256: sha256('a') }],
        ['created', '/One Commit/data/b.csv', { 'git-blob-sha1': blobId('b'), sha256: sha256('b') }],
        [
          'created',
          '/One Commit/data/deep/c.bin',
          { 'git-blob-sha1': blobId(Buffer.alloc(70_000, 1)), sha256: sha256(Buffer.alloc(70_000, 1)) },
        ],
      ]);
      const [post] = gitlab.server.requests.filter((request) => /repository\/commits$/.test(request.url));
      expect(Number(post.headers['content-length'])).toBeGreaterThan(70_000 * (4 / 3));
      expect(post.headers['transfer-encoding']).toBeUndefined();
      // the repository is no longer empty: the same writer now updates what it made
      expect((await writer.putFile(['a.txt'], countedFile('a2'), 'update')).outcome).toBe('updated');
      await writer.commit();
      expect(gitlab.filesOf(made.id)['a.txt']).toBe('a2');
    });

    it('splits a write larger than commit_batch_bytes into commits within it', async () => {
      const session = await openAlice({ commit_batch_bytes: 10 });
      const made = await session.createProject('Batched');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'batch' });
      for (const [name, content] of [
        ['a', '1234'],
        ['b', '567'],
        ['c', '89012'],
        ['d', 'x'.repeat(25)],
      ])
        await writer.putFile([name], countedFile(content), 'ignore');
      await writer.commit();
      const commits = gitlab.project(made.id).commits;
      const filesPerCommit = commits.map((commit, index) =>
        [...commit.files.keys()].filter((path) => !commits[index - 1]?.files.has(path)),
      );
      expect(filesPerCommit).toEqual([['a', 'b'], ['c'], ['d']]);
      expect(gitlab.filesOf(made.id)).toEqual({ a: '1234', b: '567', c: '89012', d: 'x'.repeat(25) });
    });

    it('commits at most 20 MiB of files at a time unless commit_batch_bytes says otherwise', async () => {
      const session = await openAlice();
      const made = await session.createProject('Default Batches');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'big' });
      for (const name of ['one.bin', 'two.bin'])
        await writer.putFile([name], countedFile(Buffer.alloc(11 << 20, name.length)), 'ignore');
      await writer.commit();
      const posts = gitlab.server.requests.filter(
        (request) => request.method === 'POST' && /repository\/commits$/.test(request.url),
      );
      expect(posts).toHaveLength(2);
      for (const post of posts)
        expect(Number(post.headers['content-length'])).toBeLessThan(20 * 2 ** 20 * (4 / 3));
      expect(gitlab.project(made.id).commits).toHaveLength(2);
    });

    it('reads nothing of an ignored duplicate, and makes no commit when nothing changed', async () => {
      const project = gitlab.seedProject('alice', 'Existing', {
        files: { 'same.txt': 'same', 'old.txt': 'old' },
      });
      const session = await openAlice();
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'dup' });
      const ignored = countedFile('other');
      expect(await writer.putFile(['old.txt'], ignored, 'ignore')).toMatchObject({
        outcome: 'ignored',
        hashes: { 'git-blob-sha1': blobId('old'), sha256: sha256('old') },
      });
      expect(ignored.opened).toBe(0);
      expect((await writer.putFile(['same.txt'], countedFile('same'), 'update')).outcome).toBe('ignored');
      await writer.commit();
      expect(gitlab.project(project.id).commits).toHaveLength(1);
      const updated = await writer.putFile(['old.txt'], countedFile('new'), 'update');
      expect(updated.outcome).toBe('updated');
      await writer.commit();
      expect(gitlab.project(project.id).commits).toHaveLength(2);
      expect(gitlab.filesOf(project.id)['old.txt']).toBe('new');
    });

    it('writes into a folder, and refuses names git cannot hold', async () => {
      const project = gitlab.seedProject('alice', 'Folders', { files: { 'docs/readme.md': '#' } });
      const session = await openAlice();
      const writer = await session.openWriter(pathId(project.id, 'docs'), {
        newProject: false,
        message: 'into',
      });
      const put = await writer.putFile(['sub', 'n.txt'], countedFile('n'), 'ignore');
      expect(put).toMatchObject({
        id: pathId(project.id, 'docs/sub/n.txt'),
        path: '/Folders/docs/sub/n.txt',
      });
      for (const names of [['..', 'x'], ['.git', 'config'], ['a/b'], []])
        expect((await failureOf(writer.putFile(names, countedFile('x'), 'ignore'))).status).toBe(400);
      await writer.commit();
      expect(gitlab.filesOf(project.id)['docs/sub/n.txt']).toBe('n');
      expect(
        (
          await failureOf(
            session.openWriter(pathId(project.id, 'nowhere'), { newProject: false, message: 'x' }),
          )
        ).status,
      ).toBe(404);
    });

    it('stages in the job directory when given one, and leaves nothing there after the commit', async () => {
      const stagingDir = await mkdtemp(join(tmpdir(), 'gitlab-staging-'));
      try {
        const session = await openAlice();
        const made = await session.createProject('Staged');
        const writer = await session.openWriter(made.id, { newProject: true, message: 'staged', stagingDir });
        const put = await writer.putFile(['a.txt'], countedFile('a'), 'ignore');
        expect(await readdir(stagingDir)).toHaveLength(1);
        expect((put.staged as { file: string }).file.startsWith(stagingDir)).toBe(true);
        await writer.commit();
        expect(await readdir(stagingDir)).toEqual([]);
      } finally {
        await rm(stagingDir, { recursive: true, force: true });
      }
    });

    it('commits no file twice when a run whose commit went through is resumed', async () => {
      const stagingDir = await mkdtemp(join(tmpdir(), 'gitlab-staging-'));
      try {
        const project = gitlab.seedProject('alice', 'Resumed', { files: { 'keep.txt': 'k' } });
        const session = await openAlice();
        const first = await session.openWriter(String(project.id), {
          newProject: false,
          message: 'run 1',
          stagingDir,
        });
        const staged = [(await first.putFile(['a.txt'], countedFile('a'), 'ignore')).staged];
        await first.commit();
        // the worker died after the commit, before the job ended: the next run restages what the first put
        const second = await session.openWriter(String(project.id), {
          newProject: false,
          message: 'run 2',
          stagingDir,
        });
        second.restage(staged);
        await second.putFile(['b.txt'], countedFile('b'), 'ignore');
        await second.commit();
        const commits = gitlab.project(project.id).commits;
        expect(commits.map((commit) => commit.message)).toEqual(['Initial commit', 'run 1', 'run 2']);
        expect(gitlab.filesOf(project.id)).toEqual({ 'keep.txt': 'k', 'a.txt': 'a', 'b.txt': 'b' });
      } finally {
        await rm(stagingDir, { recursive: true, force: true });
      }
    });

    it('names the file whose bytes GitLab does not hold after the commit', async () => {
      gitlab.settings.alterCommitted = (path, content) =>
        path === 'b.txt' ? Buffer.from(content.toString().replace(/\r\n/g, '\n')) : content;
      const session = await openAlice();
      const made = await session.createProject('Altered');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'crlf' });
      await writer.putFile(['a.txt'], countedFile('a\r\n'), 'ignore');
      await writer.putFile(['b.txt'], countedFile('b\r\n'), 'ignore');
      expect(await failureOf(writer.commit())).toEqual({
        status: 502,
        message: 'GitLab does not hold the bytes sent for b.txt.',
      });
    });

    it('passes on why GitLab refused a commit', async () => {
      const project = gitlab.seedProject('alice', 'Clash', { files: { 'data/x.txt': 'x' } });
      const session = await openAlice();
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'clash' });
      await writer.putFile(['data'], countedFile('a file where a folder is'), 'ignore');
      expect(await failureOf(writer.commit())).toEqual({
        status: 400,
        message: 'GitLab refused the commit: A directory with this name already exists',
      });
    });
  });

  describe('Git LFS', () => {
    const attributes = '*.bin filter=lfs diff=lfs merge=lfs -text\n';
    const content = randomBytes(300_000);
    const oid = sha256(content);
    /** a project whose data/big.bin was pushed through Git LFS */
    const lfsProject = (name: string, files: Record<string, string> = {}) =>
      gitlab.seedProject('alice', name, {
        files: { '.gitattributes': attributes, ...files },
        lfs: { 'data/big.bin': content },
      });
    const fileAt = (entries: (RemoteFile | RemoteFolder)[], path: string) =>
      entries.find((entry) => entry.path === path) as RemoteFile;

    it('reads a file stored in LFS with lfs=true: its content, its real size, its oid as sha256', async () => {
      const notes = 'n'.repeat(150);
      const project = lfsProject('Stored', { 'notes.txt': notes });
      const session = await openAlice();
      const detail = await session.getResource(pathId(project.id, 'data/big.bin'));
      expect(detail).toMatchObject({
        hashes: { md5: null, sha256: oid },
        extra: { path: '/data/big.bin', size: content.length, git_lfs: { oid } },
      });
      expect(detail.extra).not.toHaveProperty('blob_id');
      const entries = await walked(session, String(project.id));
      const big = fileAt(entries, 'Stored/data/big.bin');
      expect(big.size).toBe(content.length);
      expect(await big.sourceHashes(['git-blob-sha1', 'sha256'])).toEqual({ sha256: oid });
      gitlab.server.requests.length = 0;
      expect((await readAll(await big.open())).equals(content)).toBe(true);
      expect(requestsTo(/\/raw$/).map((url) => url.searchParams.get('lfs'))).toEqual(['true']);
      // a file of a pointer's size is read once, in the walk, to see that it is none, and served as read
      const small = fileAt(entries, 'Stored/notes.txt');
      expect((await readAll(await small.open())).toString()).toBe(notes);
      expect(requestsTo(/\/raw$/)).toHaveLength(1);
      expect(await small.sourceHashes(['git-blob-sha1', 'sha256'])).toEqual({
        'git-blob-sha1': blobId(notes),
        sha256: sha256(notes),
      });
    });

    it("hands on an LFS object whose bytes are not its oid's as they come, for their checksum to expose", async () => {
      const project = lfsProject('Damaged');
      gitlab.project(project.id).lfsObjects.set(oid, randomBytes(content.length));
      const session = await openAlice();
      const big = fileAt(await walked(session, String(project.id)), 'Damaged/data/big.bin');
      const read = await readAll(await big.open());
      expect(read).toHaveLength(content.length);
      expect(sha256(read)).not.toBe((await big.sourceHashes(['sha256'])).sha256);
    });

    it('commits a file that .gitattributes sends to LFS, taking the pointer GitLab keeps for the bytes sent', async () => {
      const project = gitlab.seedProject('alice', 'Tracked', {
        files: { '.gitattributes': attributes, 'a.txt': 'a' },
      });
      const session = await openAlice();
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'lfs' });
      const sent = randomBytes(50_000);
      expect(await writer.putFile(['data', 'new.bin'], countedFile(sent), 'ignore')).toMatchObject({
        outcome: 'created',
        hashes: { sha256: sha256(sent) },
      });
      await writer.putFile(['notes.txt'], countedFile('plain'), 'ignore');
      await writer.commit();
      // git holds a pointer, the project the bytes
      expect(gitlab.filesOf(project.id)['data/new.bin']).toBe(
        `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(sent)}\nsize ${sent.length}\n`,
      );
      expect(gitlab.project(project.id).lfsObjects.get(sha256(sent))?.equals(sent)).toBe(true);
      expect(gitlab.filesOf(project.id)['notes.txt']).toBe('plain');
      // read back as the bytes sent; the same bytes again are a duplicate
      const file = fileAt(await walked(session, String(project.id)), 'Tracked/data/new.bin');
      expect((await readAll(await file.open())).equals(sent)).toBe(true);
      const again = await session.openWriter(String(project.id), { newProject: false, message: 'again' });
      expect(await again.putFile(['data', 'new.bin'], countedFile(sent), 'update')).toMatchObject({
        outcome: 'ignored',
        hashes: { sha256: sha256(sent) },
      });
    });

    it('names a file whose pointer is not that of the bytes sent', async () => {
      const project = gitlab.seedProject('alice', 'Mangled', { files: { '.gitattributes': attributes } });
      gitlab.settings.alterCommitted = (path, received) =>
        path.endsWith('.bin') ? Buffer.concat([received, Buffer.from('!')]) : received;
      const session = await openAlice();
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'lfs' });
      await writer.putFile(['x.bin'], countedFile(randomBytes(5000)), 'ignore');
      expect(await failureOf(writer.commit())).toEqual({
        status: 502,
        message: 'GitLab does not hold the bytes sent for x.bin.',
      });
    });
  });

  describe('keywords', () => {
    it("are a project's topics, replaced with PUT; files and folders have none", async () => {
      const project = gitlab.seedProject('alice', 'Topical', { files: { 'a.txt': 'a' }, topics: ['soil'] });
      const session = await openAlice();
      expect(await session.keywords(String(project.id))).toEqual(['soil']);
      expect(await session.setKeywords(String(project.id), ['soil', 'water', 'Water'])).toEqual([
        'soil',
        'water',
      ]);
      expect(gitlab.project(project.id).topics).toEqual(['soil', 'water']);
      const [put] = gitlab.server.requests.filter((request) => request.method === 'PUT');
      expect(put.url).toBe(`/api/v4/projects/${project.id}`);
      expect(await failureOf(session.keywords(pathId(project.id, 'a.txt')))).toEqual({
        status: 400,
        message: 'On GitLab only projects have keywords (topics); files and folders have none.',
      });
      expect((await failureOf(session.setKeywords(pathId(project.id, 'a.txt'), ['x']))).status).toBe(400);
      expect((await failureOf(session.keywords('nope'))).status).toBe(404);
    });
  });
});
