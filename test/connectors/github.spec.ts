import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { type ConnectorSession, type IncomingFile, type RemoteFile } from '@app/connectors';
import { gitHostOf, githubConnector, type GitHubOptions } from '@app/connectors/github';
import { FakeGitHub, type SeedFiles } from '../fakes/github/fake-github';
import type { RecordedAnswer } from '../fakes/fake-server';
import { connectorContext } from '../support/connector-context';
import { OpenApiDescription } from '../support/openapi-check';
import { failureOf, readAll } from '../support/connector-failures';

const TOKEN = 'alice-token';
const gitBlobSha1 = (content: string | Buffer) => {
  const bytes = Buffer.from(content);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
};
const encodedPath = (path: string) => Buffer.from(path, 'utf8').toString('base64url');
const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const githubDescription = new OpenApiDescription(
  JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')),
  'api.github.com.json',
);

function incoming(content: string | Buffer, opened = { count: 0 }): IncomingFile {
  const bytes = Buffer.from(content);
  return {
    size: bytes.length,
    open: async () => {
      opened.count++;
      return Readable.from([bytes]);
    },
  };
}

describe('github connector', () => {
  let fake: FakeGitHub;
  /** the fake's git host, where Git LFS's batch API is */
  let gitUrl: string;

  beforeAll(async () => {
    fake = await FakeGitHub.start();
    gitUrl = await fake.startLfs();
    fake.addAccount('alice', { token: TOKEN });
    fake.addAccount('bob', { token: 'bob-token' });
  });

  beforeEach(() => {
    fake.reset();
    fake.server.requests.length = 0;
    fake.server.answers.length = 0;
  });

  afterAll(() => fake.stop());

  function connect(options: GitHubOptions = {}, perPage = 10) {
    return githubConnector.create(
      { api_url: fake.server.url, per_page: 3, ...options },
      connectorContext({ perPage }),
    );
  }

  const open = (options: GitHubOptions = {}) => connect(options).open(TOKEN);
  const seed = (name: string, files?: SeedFiles, options: { topics?: string[]; private?: boolean } = {}) =>
    fake.seedRepository('alice', name, { files, ...options });
  /** requests to the fake by method and path (query left out) */
  const requests = (method: string, path: RegExp) =>
    fake.server.requests.filter(
      (request) => request.method === method && path.test(request.url.split('?')[0]),
    );
  const queryOf = (url: string) => Object.fromEntries(new URL(url, 'http://fake').searchParams);
  const filesOf = (repositoryId: number) =>
    Object.fromEntries(
      [...fake.files(fake.repositories.get(repositoryId)!)].map(([path, content]) => [
        path,
        content.toString(),
      ]),
    );

  async function walked(session: ConnectorSession, id: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for await (const entry of session.walk(id))
      files[entry.path] = entry.kind === 'file' ? (await readAll(await entry.open())).toString() : '/';
    return files;
  }

  async function walkedEntries(session: ConnectorSession, id: string) {
    const entries = [];
    for await (const entry of session.walk(id)) entries.push(entry);
    return entries;
  }

  async function write(
    session: ConnectorSession,
    containerId: string,
    files: Record<string, string>,
    options: { newProject?: boolean; duplicate?: 'ignore' | 'update' } = {},
  ) {
    const writer = await session.openWriter(containerId, {
      newProject: options.newProject ?? false,
      message: 'm',
    });
    const results = await Promise.all(
      Object.entries(files).map(([path, content]) =>
        writer.putFile(path.split('/'), incoming(content), options.duplicate ?? 'ignore'),
      ),
    );
    await writer.commit();
    return results;
  }

  describe('options', () => {
    it('accepts the defaults and every documented option', () => {
      expect(githubConnector.validateOptions({})).toEqual([]);
      expect(
        githubConnector.validateOptions({
          api_url: 'https://ghe.example.org/api/v3',
          public: true,
          per_page: 100,
        }),
      ).toEqual([]);
    });

    it('names each problem by its option, and never quotes a credential', () => {
      const problems = githubConnector.validateOptions({
        api_url: 'https://user:s3cret-token@ghe.example.org/api/v3',
        public: 'yes',
        per_page: 101,
        token: 'x',
      });
      expect(problems).toEqual([
        'options.token is not a known option (api_url, git_url, public, per_page)',
        'options.api_url must not carry credentials: the token comes with each request',
        'options.public must be true or false',
        'options.per_page must be an integer from 1 to 100',
      ]);
      expect(githubConnector.validateOptions({ api_url: 'ftp://ghe.example.org' })).toEqual([
        'options.api_url must be an http or https URL',
      ]);
      expect(githubConnector.validateOptions({ api_url: 'not a url' })).toEqual([
        'options.api_url must be an http or https URL',
      ]);
      expect(githubConnector.validateOptions({ per_page: 0 })).toHaveLength(1);
      expect(githubConnector.validateOptions(null)).toEqual(['options must be an object']);
    });

    it("lists with the service's page size, at most GitHub's 100", async () => {
      seed('one');
      const session = await githubConnector
        .create({ api_url: fake.server.url }, connectorContext({ perPage: 250 }))
        .open(TOKEN);
      expect((await session.listResources({ page: 1 })).perPage).toBe(100);
      expect(queryOf(requests('GET', /\/user\/repos$/)[0].url).per_page).toBe('100');
    });
  });

  describe('ids', () => {
    it('names folders and files by repository id and base64url path, whatever characters the path holds', async () => {
      const repository = seed('Odd-Names', { 'my data/résumé v1.0.csv': 'cv', '100% #1?.txt': 'odd' });
      const session = await open();
      const project = await session.getResource(String(repository.id));
      const folder = project.children.find((child) => child.title === 'my data')!;
      const file = project.children.find((child) => child.title === '100% #1?.txt')!;
      for (const child of project.children) expect(child.id).toMatch(/^\d+:[A-Za-z0-9_-]+$/);
      expect(folder).toMatchObject({
        kind: 'container',
        kindName: 'folder',
        container: String(repository.id),
      });
      expect(file.id).toBe(`${repository.id}:${encodedPath('100% #1?.txt')}`);
      const inner = (await session.getResource(folder.id)).children[0];
      expect(inner).toMatchObject({ title: 'résumé v1.0.csv', kind: 'item', container: folder.id });
      expect(inner.id).toBe(`${repository.id}:${encodedPath('my data/résumé v1.0.csv')}`);
      expect(await walked(session, inner.id)).toEqual({ 'résumé v1.0.csv': 'cv' });
      expect(await walked(session, folder.id)).toEqual({ 'my data': '/', 'my data/résumé v1.0.csv': 'cv' });
    });

    it('answers 404, never 500, for ids that name nothing', async () => {
      const repository = seed('Known', { 'a.txt': 'a', 'dir/b.txt': 'b' });
      const hidden = fake.seedRepository('bob', 'secret', { files: { 'x.txt': 'x' }, private: true });
      const session = await open();
      const id = String(repository.id);
      const malformed = [
        `${id}:`,
        `${id}:!!`,
        `${id}:YS50eHQ=`, // padded: not the canonical encoding of a.txt
        `0${id}`,
        `${id}:${encodedPath('..')}`,
        `${id}:${encodedPath('a//b')}`,
        `${id}:${encodedPath('/a.txt')}`,
        `${id}:${encodedPath('.git')}`,
        `${id}:${encodedPath('nope.txt')}`,
        `${id}:${encodedPath('a.txt/deeper')}`,
        '99999999',
        String(hidden.id),
        `${hidden.id}:${encodedPath('x.txt')}`,
      ];
      for (const bad of malformed) {
        expect({ bad, status: (await failureOf(session.getResource(bad))).status }).toEqual({
          bad,
          status: 404,
        });
      }
      expect((await session.getResource(`${id}:${encodedPath('a.txt')}`)).title).toBe('a.txt');
    });
  });

  describe('listing', () => {
    it("pages through the user's repositories, newest first, counting pages by the Link header", async () => {
      for (let n = 1; n <= 7; n++) seed(`r${n}`);
      const session = await open();
      const titles = async (page: number) => {
        const listed = await session.listResources({ page });
        return { titles: listed.resources.map((resource) => resource.title), totalPages: listed.totalPages };
      };
      expect(await titles(1)).toEqual({ titles: ['r7', 'r6', 'r5'], totalPages: 3 });
      expect(await titles(2)).toEqual({ titles: ['r4', 'r3', 'r2'], totalPages: 3 });
      expect(await titles(3)).toEqual({ titles: ['r1'], totalPages: 3 });
      expect(await titles(4)).toEqual({ titles: [], totalPages: 3 });
      const asked = requests('GET', /\/user\/repos$/).map((request) => queryOf(request.url));
      expect(asked.slice(0, 3)).toEqual(
        [1, 2, 3].map((page) => ({ sort: 'updated', direction: 'desc', per_page: '3', page: String(page) })),
      );
    });

    it('searches what the listing shows: own, organization and shared repositories, and nothing else', async () => {
      const alice = fake.account('alice')!;
      const lab = fake.addAccount('reef-lab', { organization: true });
      lab.members.add(alice);
      seed('Coral-Reef-Survey', { 'a.txt': 'a' }, { topics: ['soil-moisture'] });
      fake.seedRepository('reef-lab', 'Coral-Lab-Data', { private: true });
      const shared = fake.seedRepository('bob', 'coral_shared.v2', {
        private: true,
        topics: ['soil-moisture'],
      });
      shared.collaborators.add(alice);
      fake.seedRepository('bob', 'Coral-Bob', { topics: ['soil-moisture'] });
      fake.seedRepository('bob', 'Bob-Private-Coral', { private: true });
      const session = await open({ per_page: 2 });
      const search = async (filter: 'title' | 'general' | 'keywords', value: string, page = 1) => {
        const found = await session.listResources({ search: { filter, value }, page });
        return { titles: found.resources.map((resource) => resource.title), pages: found.totalPages };
      };
      const listed = (await session.listResources({ page: 1 })).totalPages;
      expect(listed).toBe(2);

      expect(await search('title', 'coral')).toEqual({
        titles: ['coral_shared.v2', 'Coral-Lab-Data'],
        pages: 2,
      });
      expect(await search('title', 'coral', 2)).toEqual({ titles: ['Coral-Reef-Survey'], pages: 2 });
      expect(await search('title', 'Coral Shared')).toEqual({ titles: ['coral_shared.v2'], pages: 1 });
      expect(await search('general', 'Reef')).toEqual({ titles: ['Coral-Reef-Survey'], pages: 1 });
      expect(await search('keywords', 'Soil Moisture')).toEqual({
        titles: ['coral_shared.v2', 'Coral-Reef-Survey'],
        pages: 1,
      });
      expect(await search('title', 'Bob')).toEqual({ titles: [], pages: 1 });
      expect(await search('title', '  ')).toEqual({ titles: [], pages: 1 });
      expect(requests('GET', /\/search\//)).toEqual([]);
    });

    it('reads the whole listing, 100 repositories a page, to page what a search finds', async () => {
      for (let n = 1; n <= 230; n++) seed(n % 2 === 0 ? `even-${n}` : `odd-${n}`);
      const session = await open({ per_page: 50 });
      fake.server.requests.length = 0;
      const second = await session.listResources({ search: { filter: 'title', value: 'even' }, page: 2 });
      expect(second.totalPages).toBe(3);
      expect(second.resources.map((resource) => resource.title)).toEqual(
        Array.from({ length: 50 }, (_, n) => `even-${130 - 2 * n}`),
      );
      expect(fake.server.requests.map((request) => queryOf(request.url))).toEqual(
        [1, 2, 3].map((page) => ({
          sort: 'updated',
          direction: 'desc',
          per_page: '100',
          page: String(page),
        })),
      );
    });

    it("answers the author and id filters as before: that user's public repositories, the one repository", async () => {
      const coral = seed('Coral-Reef-Survey', { 'a.txt': 'a' });
      fake.seedRepository('bob', 'Coral-Bob');
      const session = await open();
      const search = async (filter: 'author' | 'id', value: string) => {
        fake.server.requests.length = 0;
        const found = await session.listResources({ search: { filter, value }, page: 1 });
        return found.resources.map((resource) => resource.title);
      };
      expect(await search('author', 'bob')).toEqual(['Coral-Bob']);
      expect(fake.server.requests.map((request) => request.url)).toEqual([
        '/users/bob/repos?sort=updated&direction=desc&per_page=3&page=1',
      ]);
      expect(await search('author', 'nobody')).toEqual([]);
      expect(await search('id', String(coral.id))).toEqual(['Coral-Reef-Survey']);
      expect(fake.server.requests.map((request) => request.url)).toEqual([`/repositories/${coral.id}`]);
      expect(await search('id', 'not-an-id')).toEqual([]);
      expect(fake.server.requests).toEqual([]);
    });
  });

  describe('detail and walk', () => {
    it('dates a file by the commits that touched it and shows its git blob id', async () => {
      const repository = seed('Dated', { 'data/v.csv': 'v1', 'other.txt': 'o' });
      const first = fake.head(repository)!;
      fake.pushFiles(repository, { 'other.txt': 'o2' });
      fake.pushFiles(repository, { 'data/v.csv': 'v2' });
      const history = repository.objects.history(fake.head(repository)!);
      const session = await open();
      const file = await session.getResource(`${repository.id}:${encodedPath('data/v.csv')}`);
      expect(file).toMatchObject({
        kind: 'item',
        kindName: 'file',
        title: 'v.csv',
        hashes: { md5: null, sha256: null },
        dateCreated: repository.objects.commit(first)!.date.replace('Z', '.000Z'),
        dateModified: history[0].commit.date.replace('Z', '.000Z'),
        extra: { path: '/data/v.csv', size: 2, 'git-blob-sha1': gitBlobSha1('v2'), branch: 'main' },
        children: [],
      });
      expect(file.dateCreated < file.dateModified).toBe(true);
    });

    it('fetches blobs raw, with the API version, and the token on every request', async () => {
      const repository = seed('Raw', { 'a.bin': Buffer.from([0, 1, 2, 255]) });
      const session = await open();
      expect(await walked(session, String(repository.id))).toEqual({
        Raw: '/',
        'Raw/a.bin': Buffer.from([0, 1, 2, 255]).toString(),
      });
      const blob = requests('GET', /\/git\/blobs\//)[0];
      expect(blob.headers.accept).toBe('application/vnd.github.raw+json');
      for (const request of fake.server.requests) {
        expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
        expect(request.headers['x-github-api-version']).toBe('2022-11-28');
      }
    });

    it('never sends the token to another host a download redirects to', async () => {
      const storage = await fake.redirectBlobs();
      try {
        const repository = seed('Redirected', { 'big.csv': 'x,y\n1,2\n' });
        const session = await open();
        expect(await walked(session, String(repository.id))).toMatchObject({
          'Redirected/big.csv': 'x,y\n1,2\n',
        });
        expect(storage.requests).toHaveLength(1);
        expect(storage.requests[0].headers.authorization).toBeUndefined();
        expect(requests('GET', /\/git\/blobs\//)[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
      } finally {
        await storage.stop();
        fake.storage = null;
      }
    });

    it('refuses a folder that GitHub lists only in part', async () => {
      const repository = seed('Huge', { 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
      fake.treeEntryLimit = 2;
      const session = await open();
      const walking = (async () => {
        for await (const entry of session.walk(String(repository.id))) void entry;
      })();
      expect(await failureOf(walking)).toEqual({
        status: 502,
        message:
          'GitHub listed only part of a folder of alice/Huge: it holds more entries than GitHub lists at once.',
      });
    });

    it('walks an empty repository as its folder alone', async () => {
      const repository = seed('Empty');
      const session = await open();
      expect(await walked(session, String(repository.id))).toEqual({ Empty: '/' });
      expect((await session.getResource(String(repository.id))).children).toEqual([]);
    });

    it('works below a GitHub Enterprise Server base path', async () => {
      const enterprise = await FakeGitHub.start('/api/v3');
      try {
        enterprise.addAccount('alice', { token: TOKEN });
        const repository = enterprise.seedRepository('alice', 'on-premises', { files: { 'doc/x.txt': 'x' } });
        const connector = githubConnector.create({ api_url: enterprise.server.url }, connectorContext());
        const session = await connector.open(TOKEN);
        expect((await session.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual([
          'on-premises',
        ]);
        expect(await walked(session, String(repository.id))).toEqual({
          'on-premises': '/',
          'on-premises/doc': '/',
          'on-premises/doc/x.txt': 'x',
        });
        expect(enterprise.server.requests.every((request) => request.url.startsWith('/api/v3/'))).toBe(true);
      } finally {
        await enterprise.stop();
      }
    });
  });

  describe('writing', () => {
    it("makes one commit of everything put, replacing a new repository's first README", async () => {
      const session = await open();
      const project = await session.createProject('Field Notes (2024)');
      expect(project).toMatchObject({ title: 'Field-Notes-2024', kindName: 'repo', container: null });
      const results = await write(
        session,
        project.id,
        { 'a.txt': 'a', 'b/c.txt': 'c' },
        { newProject: true },
      );
      expect(results.map((result) => [result.outcome, result.path, result.hashes])).toEqual([
        ['created', '/Field-Notes-2024/a.txt', { 'git-blob-sha1': gitBlobSha1('a') }],
        ['created', '/Field-Notes-2024/b/c.txt', { 'git-blob-sha1': gitBlobSha1('c') }],
      ]);
      const repository = fake.repositories.get(Number(project.id))!;
      expect(filesOf(repository.id)).toEqual({ 'a.txt': 'a', 'b/c.txt': 'c' });
      expect(fake.commitCount(repository)).toBe(2);
      expect(requests('POST', /\/git\/trees$/)).toHaveLength(1);
      expect(requests('PATCH', /\/git\/refs\/heads\/main$/)).toHaveLength(1);
      expect(repository.private).toBe(true);
    });

    it('keeps what a repository holds and writes below a folder', async () => {
      const repository = seed('Existing', { 'keep.txt': 'k', 'data/old.csv': 'o' });
      const session = await open();
      const folderId = `${repository.id}:${encodedPath('data')}`;
      const [result] = await write(session, folderId, { 'new.csv': 'n' });
      expect(result).toMatchObject({
        outcome: 'created',
        id: `${repository.id}:${encodedPath('data/new.csv')}`,
        path: '/Existing/data/new.csv',
      });
      expect(filesOf(repository.id)).toEqual({ 'keep.txt': 'k', 'data/old.csv': 'o', 'data/new.csv': 'n' });
      expect(fake.commitCount(repository)).toBe(2);
    });

    it('leaves a duplicate unread with ignore, and with update compares blob ids', async () => {
      const repository = seed('Dups', { 'same.txt': 'one', 'changed.txt': 'one' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const opened = { count: 0 };
      expect((await writer.putFile(['same.txt'], incoming('two', opened), 'ignore')).outcome).toBe('ignored');
      expect(opened.count).toBe(0);
      expect((await writer.putFile(['same.txt'], incoming('one'), 'update')).outcome).toBe('ignored');
      const updated = await writer.putFile(['changed.txt'], incoming('two'), 'update');
      expect(updated).toMatchObject({ outcome: 'updated', hashes: { 'git-blob-sha1': gitBlobSha1('two') } });
      await writer.commit();
      expect(filesOf(repository.id)).toEqual({ 'same.txt': 'one', 'changed.txt': 'two' });
    });

    it('makes no commit when nothing changed', async () => {
      const repository = seed('Unchanged', { 'a.txt': 'a' });
      const session = await open();
      await write(session, String(repository.id), { 'a.txt': 'a' }, { duplicate: 'update' });
      expect(fake.commitCount(repository)).toBe(1);
    });

    it('refuses a path through a file, a file onto a folder, and names git cannot hold', async () => {
      const repository = seed('Shapes', { 'file.txt': 'f', 'dir/inner.txt': 'i' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const put = (path: string[]) => failureOf(writer.putFile(path, incoming('x'), 'update'));
      expect(await put(['file.txt', 'below.txt'])).toEqual({
        status: 400,
        message: "'file.txt/below.txt' cannot be written: 'file.txt' is not a folder.",
      });
      expect(await put(['dir'])).toEqual({
        status: 400,
        message: "'dir' cannot be written: a folder or link has that name.",
      });
      expect((await put(['.git', 'config'])).status).toBe(400);
      expect((await put(['..'])).status).toBe(400);
      await writer.putFile(['staged.txt'], incoming('s'), 'ignore');
      expect((await put(['staged.txt', 'x'])).message).toBe(
        "'staged.txt/x' cannot be written: 'staged.txt' is a file.",
      );
    });

    it('refuses to write into a file, and to commit what an unknown writer staged', async () => {
      const repository = seed('Refusals', { 'a.txt': 'a' });
      const session = await open();
      const fileId = `${repository.id}:${encodedPath('a.txt')}`;
      expect(await failureOf(session.openWriter(fileId, { newProject: false, message: 'm' }))).toEqual({
        status: 400,
        message: `The Resource provided, ${fileId}, is not a container`,
      });
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      expect(() => writer.restage([{ path: 'x' }])).toThrow(
        'A staged GitHub file lacks its path, sha or mode.',
      );
    });

    it('starts an empty repository through the contents API, then commits the rest as one commit', async () => {
      const repository = seed('Blank');
      const session = await open();
      const results = await write(session, String(repository.id), {
        'one.txt': '1',
        'two.txt': '2',
        'd/three.txt': '3',
      });
      expect(results.map((result) => result.outcome)).toEqual(['created', 'created', 'created']);
      expect(requests('PUT', /\/contents\//)).toHaveLength(1);
      expect(filesOf(repository.id)).toEqual({ 'one.txt': '1', 'two.txt': '2', 'd/three.txt': '3' });
      expect(fake.commitCount(repository)).toBe(2);
      // a single file is the first commit, and nothing is left for another
      const single = seed('Single');
      await write(session, String(single.id), { 'only.txt': 'o' });
      expect(filesOf(single.id)).toEqual({ 'only.txt': 'o' });
      expect(fake.commitCount(single)).toBe(1);
    });

    it('builds the tree of many files in chunks chained by base_tree', async () => {
      const repository = seed('Many', { 'existing.txt': 'e' });
      const files = Object.fromEntries(Array.from({ length: 1001 }, (_, n) => [`f/${n}.txt`, String(n)]));
      const session = await open();
      await write(session, String(repository.id), files);
      expect(requests('POST', /\/git\/trees$/)).toHaveLength(3);
      const stored = filesOf(repository.id);
      expect(Object.keys(stored)).toHaveLength(1002);
      expect(stored['f/1000.txt']).toBe('1000');
      expect(fake.commitCount(repository)).toBe(2);
    });

    it('builds on the branch as it is at commit time, and retries when it moves at the last moment', async () => {
      const repository = seed('Busy', { 'a.txt': 'a' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      await writer.putFile(['mine.txt'], incoming('mine'), 'ignore');
      fake.pushFiles(repository, { 'theirs.txt': 'theirs' });
      fake.beforeNextRefUpdate = () => fake.pushFiles(repository, { 'late.txt': 'late' });
      await writer.commit();
      expect(filesOf(repository.id)).toEqual({
        'a.txt': 'a',
        'mine.txt': 'mine',
        'theirs.txt': 'theirs',
        'late.txt': 'late',
      });
      expect(requests('PATCH', /\/git\/refs\//)).toHaveLength(2);
    });

    it('waits for the first commit of a repository GitHub is still making', async () => {
      const session = await open();
      const project = await session.createProject('Slow Start');
      fake.server.inject({ kind: 'status', status: 409, times: 2, match: { path: /\/git\/ref\// } });
      await write(session, project.id, { 'a.txt': 'a' }, { newProject: true });
      expect(requests('PUT', /\/contents\//)).toHaveLength(0);
      expect(filesOf(Number(project.id))).toEqual({ 'a.txt': 'a' });
    });

    it('refuses a file over 100 MiB before sending any of it', async () => {
      const repository = seed('Large', { 'a.txt': 'a' });
      const connector = connect();
      const session = await connector.open(TOKEN);
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const huge: IncomingFile = {
        size: 150 * 2 ** 20,
        open: async () => {
          throw new Error('a refused file is never read');
        },
      };
      expect(await failureOf(writer.putFile(['data', 'huge.bin'], huge, 'update'))).toEqual({
        status: 400,
        message:
          "'data/huge.bin' cannot be written: it is 150.0 MiB, and GitHub takes files of at most 100 MiB through its API.",
      });
      expect(requests('POST', /\/git\/blobs$/)).toEqual([]);
      expect(connector.fileSizeProblem?.(100 * 2 ** 20)).toBeNull();
      expect(connector.fileSizeProblem?.(150 * 2 ** 20)).toBe(
        'it is 150.0 MiB, and GitHub takes files of at most 100 MiB through its API',
      );
    });

    it('refuses a file whose stream does not hold the size it announced', async () => {
      const repository = seed('Sizes', { 'a.txt': 'a' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const short = { size: 10, open: async () => Readable.from([Buffer.from('abc')]) };
      expect((await failureOf(writer.putFile(['b.txt'], short, 'ignore'))).message).toContain(
        'A file changed while it was sent: 10 bytes were expected, 3 came',
      );
    });
  });

  describe('Git LFS', () => {
    const attributes = '*.bin filter=lfs diff=lfs merge=lfs -text\n';
    const content = randomBytes(300_000);
    const oid = sha256(content);
    /** a repository whose data/big.bin was pushed through Git LFS */
    const lfsSeed = (name: string, files: SeedFiles = {}) =>
      fake.seedRepository('alice', name, {
        files: { '.gitattributes': attributes, ...files },
        lfs: { 'data/big.bin': content },
      });
    const bigFile = async (session: ConnectorSession, repositoryId: number) =>
      (await walkedEntries(session, String(repositoryId))).find((entry) =>
        entry.path.endsWith('/data/big.bin'),
      ) as RemoteFile;

    it('serves a file stored in LFS as its content, its oid as its sha256, and its real size', async () => {
      const notes = 'n'.repeat(150);
      const repository = lfsSeed('Stored', { 'notes.txt': notes });
      const session = await open({ git_url: gitUrl });
      const detail = await session.getResource(`${repository.id}:${encodedPath('data/big.bin')}`);
      expect(detail).toMatchObject({
        hashes: { md5: null, sha256: oid },
        extra: { path: '/data/big.bin', size: content.length, git_lfs: { oid } },
      });
      expect(detail.extra).not.toHaveProperty('git-blob-sha1');
      const big = await bigFile(session, repository.id);
      expect(big.size).toBe(content.length);
      expect(await big.sourceHashes(['git-blob-sha1', 'sha256'])).toEqual({ sha256: oid });
      expect((await readAll(await big.open())).equals(content)).toBe(true);
      // a file of a pointer's size is read once to see that it is none, and served as read
      const small = (await walkedEntries(session, String(repository.id))).find((entry) =>
        entry.path.endsWith('/notes.txt'),
      ) as RemoteFile;
      const blobReads = requests('GET', /\/git\/blobs\//).length;
      expect((await readAll(await small.open())).toString()).toBe(notes);
      expect(requests('GET', /\/git\/blobs\//)).toHaveLength(blobReads);
      expect(await small.sourceHashes(['git-blob-sha1', 'sha256'])).toEqual({
        'git-blob-sha1': gitBlobSha1(notes),
      });
    });

    it("sends the user's token to the git host only, and to the storage only what the batch answer gives", async () => {
      const repository = lfsSeed('Guarded');
      const session = await open({ git_url: gitUrl });
      await readAll(await (await bigFile(session, repository.id)).open());
      const { gitHost, storage } = fake.lfs!;
      expect(gitHost.requests).toHaveLength(1);
      expect(gitHost.requests[0]).toMatchObject({
        method: 'POST',
        url: '/alice/Guarded.git/info/lfs/objects/batch',
      });
      expect(gitHost.requests[0].headers).toMatchObject({
        authorization: `Basic ${Buffer.from(`alice:${TOKEN}`).toString('base64')}`,
        accept: 'application/vnd.git-lfs+json',
        'content-type': 'application/vnd.git-lfs+json',
      });
      expect(storage.requests).toHaveLength(1);
      expect(storage.requests[0].headers.authorization).toMatch(/^RemoteAuth [0-9a-f]+$/);
      expect(JSON.stringify(storage.requests)).not.toContain(TOKEN);
    });

    it('finds the git host of github.com, GitHub Enterprise Cloud and Server from the API URL', () => {
      expect(gitHostOf('https://api.github.com')).toBe('https://github.com');
      expect(gitHostOf('https://api.acme.ghe.com/')).toBe('https://acme.ghe.com');
      expect(gitHostOf('https://ghe.example.org/api/v3')).toBe('https://ghe.example.org');
      expect(gitHostOf('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
      expect(githubConnector.validateOptions({ git_url: 'https://github.com' })).toEqual([]);
      expect(githubConnector.validateOptions({ git_url: 'github.com' })).toEqual([
        'options.git_url must be an http or https URL',
      ]);
    });

    it('hands on an object whose bytes are not those of its oid as they come, for their checksum to expose', async () => {
      const repository = lfsSeed('Damaged');
      repository.lfsObjects.set(oid, randomBytes(content.length));
      const session = await open({ git_url: gitUrl });
      const big = await bigFile(session, repository.id);
      const read = await readAll(await big.open());
      expect(read).toHaveLength(content.length);
      expect(sha256(read)).not.toBe((await big.sourceHashes(['sha256'])).sha256);
    });

    it('fails clearly when LFS holds no object for a pointer', async () => {
      const repository = lfsSeed('Lost');
      repository.lfsObjects.clear();
      const session = await open({ git_url: gitUrl });
      expect(await failureOf((await bigFile(session, repository.id)).open())).toEqual({
        status: 502,
        message:
          "GitHub's LFS cannot give the content of alice/Lost/data/big.bin: 404 Object does not exist.",
      });
    });

    it("names the LFS endpoint, not the user's token, when the git host refuses", async () => {
      const repository = lfsSeed('Refused');
      const session = await open({ git_url: gitUrl });
      const big = await bigFile(session, repository.id);
      fake.lfs!.gitHost.inject({ kind: 'status', status: 401, body: { message: 'Credentials needed' } });
      expect(await failureOf(big.open())).toEqual({
        status: 502,
        message: `GitHub's LFS endpoint answered 401 for alice/Refused (${gitUrl}; options.git_url).`,
      });
    });

    it('takes a file stored in LFS for a duplicate of the same content, by its oid', async () => {
      const repository = lfsSeed('Duplicates');
      const session = await open({ git_url: gitUrl });
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const opened = { count: 0 };
      const unchanged = { outcome: 'ignored', hashes: { sha256: oid } };
      expect(await writer.putFile(['data', 'big.bin'], incoming(content, opened), 'ignore')).toMatchObject(
        unchanged,
      );
      expect(opened.count).toBe(0);
      expect(await writer.putFile(['data', 'big.bin'], incoming(content), 'update')).toMatchObject(unchanged);
      const changed = randomBytes(1000);
      expect((await writer.putFile(['data', 'big.bin'], incoming(changed), 'update')).outcome).toBe(
        'updated',
      );
      await writer.commit();
      // GitHub's git data API stores what it is given as a blob: the file is no longer in LFS
      expect(fake.files(repository).get('data/big.bin')?.equals(changed)).toBe(true);
    });
  });

  describe('secondary rate limits', () => {
    const secondaryLimit =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';

    it("waits as long as a secondary limit's Retry-After says, and carries on", async () => {
      const repository = seed('Busy-Writer', { 'a.txt': 'a' });
      fake.secondaryLimit = { limit: 2, windowMs: 1000, status: 403, retryAfter: true };
      const session = await open();
      const started = Date.now();
      await write(session, String(repository.id), { 'b.txt': 'b', 'c.txt': 'c' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(filesOf(repository.id)).toEqual({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
      expect(fake.server.answers.filter((answer) => answer.status === 403).length).toBeGreaterThan(0);
    });

    it('answers a 403 secondary limit without Retry-After as a rate limit, never as a refused token', async () => {
      const repository = seed('Limited', { 'a.txt': 'a' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      fake.secondaryLimit = { limit: 0, windowMs: 60_000, status: 403, retryAfter: false };
      expect(await failureOf(writer.putFile(['b.txt'], incoming('b'), 'ignore'))).toEqual({
        status: 503,
        message: "GitHub's rate limit is used up for now; try again later.",
      });
      // GitHub asks for a minute's wait, longer than this service may wait (2 s here): it asked once
      expect(requests('POST', /\/git\/blobs$/)).toHaveLength(1);
      expect(fake.server.answers.at(-1)).toMatchObject({
        status: 403,
        body: { message: expect.stringContaining(secondaryLimit) },
      });
      // a 403 the create-a-blob operation documents
      const limited = fake.server.answers.filter((answer) => answer.status === 403);
      expect(githubDescription.problems(limited)).toEqual([]);
    });

    it('does not ask again at once after a 429 secondary limit without Retry-After', async () => {
      const repository = seed('Limited-429', { 'a.txt': 'a' });
      const session = await open();
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      fake.secondaryLimit = { limit: 0, windowMs: 60_000, status: 429, retryAfter: false };
      expect((await failureOf(writer.putFile(['b.txt'], incoming('b'), 'ignore'))).message).toMatch(
        /rate limit/,
      );
      expect(requests('POST', /\/git\/blobs$/)).toHaveLength(1);
    });

    it('recognises a secondary limit on a read by its message too', async () => {
      seed('Listed');
      const session = await open();
      fake.server.inject({
        kind: 'status',
        status: 403,
        body: { message: secondaryLimit, documentation_url: 'https://docs.github.com/rest' },
        match: { path: /\/user\/repos$/ },
      });
      expect(await failureOf(session.listResources({ page: 1 }))).toEqual({
        status: 503,
        message: "GitHub's rate limit is used up for now; try again later.",
      });
      // any other 403 is still a refusal, its message read and passed on
      fake.server.inject({ kind: 'status', status: 403, body: { message: 'Must have admin rights' } });
      expect((await failureOf(session.listResources({ page: 1 }))).status).toBe(403);
    });
  });

  describe('projects', () => {
    it('names a repository after a title, numbered when taken, private unless configured public', async () => {
      seed('Coral-Reef');
      const session = await open();
      expect((await session.createProject('Coral Reef')).title).toBe('Coral-Reef-2');
      expect((await session.createProject('Coral Reef')).title).toBe('Coral-Reef-3');
      expect((await session.createProject('Café: données')).title).toBe('Cafe-donnees');
      const published = await (await open({ public: true })).createProject('Open Data');
      expect(fake.repositories.get(Number(published.id))!.private).toBe(false);
      // each taken name costs one refused request: 2 + 3 + 1 + 1
      expect(requests('POST', /\/user\/repos$/)).toHaveLength(7);
    });
  });

  describe('keywords', () => {
    it('keeps keywords as topics GitHub accepts, and answers them as stored', async () => {
      const repository = seed('Topics', { 'a.txt': 'a' });
      const session = await open();
      const id = String(repository.id);
      expect(
        await session.setKeywords(id, ['Soil Moisture', 'Café', '!!!', 'soil moisture', 'x'.repeat(60)]),
      ).toEqual(['soil-moisture', 'cafe', 'x'.repeat(50)]);
      expect(await session.keywords(id)).toEqual(['soil-moisture', 'cafe', 'x'.repeat(50)]);
      const many = Array.from({ length: 25 }, (_, n) => `k${n}`);
      expect(await session.setKeywords(id, many)).toEqual(many.slice(0, 20));
      expect(fake.repositories.get(repository.id)!.topics).toEqual(many.slice(0, 20));
    });

    it('answers 400 for a folder or file, and 404 for a path that names nothing', async () => {
      const repository = seed('No-Topics', { 'a.txt': 'a' });
      const session = await open();
      expect((await failureOf(session.keywords(`${repository.id}:${encodedPath('a.txt')}`))).status).toBe(
        400,
      );
      expect(
        (await failureOf(session.setKeywords(`${repository.id}:${encodedPath('a.txt')}`, ['x']))).status,
      ).toBe(400);
      expect((await failureOf(session.keywords(`${repository.id}:${encodedPath('b.txt')}`))).status).toBe(
        404,
      );
    });
  });

  describe('faults', () => {
    it('retries a 429 after the Retry-After it gives', async () => {
      seed('Patient');
      const session = await open();
      fake.server.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        match: { path: /user\/repos/ },
      });
      const started = Date.now();
      expect((await session.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual(['Patient']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(requests('GET', /\/user\/repos$/)).toHaveLength(2);
    });

    it('waits for a spent rate limit to reset', async () => {
      fake.setRateLimit('core', 0, 1);
      const started = Date.now();
      expect((await open()).username).toBe('alice');
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      expect(requests('GET', /^\/user$/)).toHaveLength(2);
    });

    it('gives up on a lasting 5xx with an error that names GitHub', async () => {
      const repository = seed('Broken', { 'a.txt': 'a' });
      const session = await open();
      fake.server.inject({ kind: 'status', status: 502, times: 10, match: { path: /\/git\/trees\// } });
      const error = await failureOf(session.getResource(String(repository.id)));
      expect(error.status).toBe(502);
      expect(error.message).toMatch(
        /^GitHub answered 502: injected 502 \(\/repos\/alice\/Broken\/git\/trees\/[0-9a-f]{40}\)\.$/,
      );
    });

    it('sends a blob again after a 5xx, reading the file anew (a blob is named by its content)', async () => {
      const repository = seed('Resent', { 'a.txt': 'a' });
      const session = await open();
      fake.server.inject({ kind: 'status', status: 502, match: { method: 'POST', path: /\/git\/blobs$/ } });
      const writer = await session.openWriter(String(repository.id), { newProject: false, message: 'm' });
      const opened = { count: 0 };
      expect((await writer.putFile(['b.txt'], incoming('bee', opened), 'ignore')).outcome).toBe('created');
      await writer.commit();
      expect(opened.count).toBe(2);
      expect(filesOf(repository.id)).toEqual({ 'a.txt': 'a', 'b.txt': 'bee' });
    });

    it('fails a blob download cut off midway rather than giving a short file', async () => {
      const repository = seed('Cut', { 'big.bin': Buffer.alloc(300_000, 7) });
      const session = await open();
      fake.server.inject({ kind: 'cut', afterBytes: 100_000, match: { path: /\/git\/blobs\// } });
      const file = (await walkedEntries(session, String(repository.id))).find(
        (entry) => entry.kind === 'file',
      );
      await expect(readAll(await (file as RemoteFile).open())).rejects.toThrow();
    });

    it('answers 401 for a token GitHub refuses', async () => {
      expect(await failureOf(connect().open('mallory-token'))).toEqual({
        status: 401,
        message: 'Token is invalid. Response returned a 401 status code.',
      });
      expect((await failureOf(connect().open('bad\ntoken'))).status).toBe(401);
    });
  });

  describe('status', () => {
    it('probes the rate-limit endpoint without a token', async () => {
      expect(await connect().status()).toEqual({ ok: true, detail: 'Connected to server successfully' });
      expect(fake.server.requests.map((request) => [request.url, request.headers.authorization])).toEqual([
        ['/rate_limit', undefined],
      ]);
      const down = await githubConnector
        .create({ api_url: 'http://127.0.0.1:9/' }, connectorContext())
        .status();
      expect(down).toEqual({ ok: false, detail: 'Could not connect to GitHub: ECONNREFUSED' });
    });
  });

  describe("GitHub's OpenAPI description", () => {
    const description = githubDescription;

    /**
     * `GET /repositories/{id}` is not in the description (nor in GitHub's reference), yet GitHub answers it with
     * the full repository that `GET /repos/{owner}/{repo}` documents: its answers are checked against that.
     */
    const asDocumented = (answers: readonly RecordedAnswer[]) =>
      answers.map((answer) =>
        answer.template === '/repositories/{repository_id}'
          ? { ...answer, template: '/repos/{owner}/{repo}' }
          : answer,
      );

    it('answers every request of a realistic session with JSON the description allows', async () => {
      const reef = seed(
        'Coral-Reef-Survey',
        { 'README.md': '# reef', 'data/counts.csv': 'a,b\n' },
        { topics: ['reefs'] },
      );
      const blank = seed('Blank');
      fake.seedRepository('bob', 'shared-data', { files: { 'x.txt': 'x' } });
      const session = await open();
      await session.listResources({ page: 1 });
      await session.listResources({ page: 1, search: { filter: 'title', value: 'Coral' } });
      await session.listResources({ page: 1, search: { filter: 'keywords', value: 'reefs' } });
      await session.listResources({ page: 1, search: { filter: 'author', value: 'bob' } });
      await session.listResources({ page: 1, search: { filter: 'id', value: String(reef.id) } });
      const detail = await session.getResource(String(reef.id));
      await session.getResource(detail.children.find((child) => child.title === 'data')!.id);
      await session.getResource(`${reef.id}:${encodedPath('data/counts.csv')}`);
      for await (const entry of session.walk(String(reef.id)))
        if (entry.kind === 'file') await readAll(await entry.open());
      const project = await session.createProject('Coral Reef Survey');
      await write(session, project.id, { 'a.txt': 'a', 'b/c.txt': 'c' }, { newProject: true });
      await write(session, String(reef.id), { 'data/more.csv': 'm' });
      await write(session, String(blank.id), { 'first.txt': '1', 'second.txt': '2' });
      await session.setKeywords(String(reef.id), ['reefs', 'Coral Biology']);
      await session.keywords(String(reef.id));

      const templates = new Set(
        fake.server.answers.map((answer) => `${answer.method} ${answer.template} ${answer.status}`),
      );
      expect([...templates].sort()).toEqual(
        expect.arrayContaining([
          'GET /user 200',
          'GET /user/repos 200',
          'GET /users/{username}/repos 200',
          'GET /repositories/{repository_id} 200',
          'GET /repos/{owner}/{repo}/git/ref/{ref} 200',
          'GET /repos/{owner}/{repo}/git/ref/{ref} 409',
          'GET /repos/{owner}/{repo}/git/commits/{commit_sha} 200',
          'GET /repos/{owner}/{repo}/git/trees/{tree_sha} 200',
          'GET /repos/{owner}/{repo}/commits 200',
          'POST /user/repos 201',
          'POST /user/repos 422',
          'POST /repos/{owner}/{repo}/git/blobs 201',
          'POST /repos/{owner}/{repo}/git/trees 201',
          'POST /repos/{owner}/{repo}/git/commits 201',
          'PATCH /repos/{owner}/{repo}/git/refs/{ref} 200',
          'PUT /repos/{owner}/{repo}/contents/{path} 201',
          'PUT /repos/{owner}/{repo}/topics 200',
          'GET /repos/{owner}/{repo}/topics 200',
        ]),
      );
      expect(description.problems(asDocumented(fake.server.answers))).toEqual([]);
    });
  });
});
