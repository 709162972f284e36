import { createHash } from 'node:crypto';
import type { Connector, ConnectorSession, RemoteFile, RemoteFolder } from '@app/connectors/connector';
import { curateNdConnector, type CurateNdOptions } from '@app/connectors/curate_nd';
import { FakeCurateNd } from '../fakes/curate_nd/fake-curate-nd';
import type { RecordedRequest } from '../fakes/fake-server';
import { connectorContext } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';

const md5 = (bytes: string | Buffer) => createHash('md5').update(bytes).digest('hex');

async function walked(session: ConnectorSession, id: string): Promise<(RemoteFile | RemoteFolder)[]> {
  const entries: (RemoteFile | RemoteFolder)[] = [];
  for await (const entry of session.walk(id)) entries.push(entry);
  return entries;
}

/** The query of each search the fake received, as parameters. */
function searches(requests: readonly RecordedRequest[]): Record<string, string>[] {
  return requests
    .map((request) => new URL(request.url, 'http://fake'))
    .filter((url) => url.pathname === '/api/items')
    .map((url) => Object.fromEntries(url.searchParams));
}

describe('curate_nd connector', () => {
  let fake: FakeCurateNd;

  beforeAll(async () => {
    fake = await new FakeCurateNd().start();
  });

  beforeEach(() => {
    fake.reset();
    fake.addUser('alice-token', 'alice');
    fake.addUser('bob-token', 'bob');
  });

  afterAll(async () => {
    await fake.stop();
  });

  function connect(options: Partial<CurateNdOptions> = {}, perPage = 10): Connector {
    return curateNdConnector.create({ api_url: fake.url, ...options }, connectorContext({ perPage }));
  }

  /** alice's session, with the requests made to open it forgotten */
  async function alice(options: Partial<CurateNdOptions> = {}): Promise<ConnectorSession> {
    const session = await connect(options).open('alice-token');
    fake.server.requests.length = 0;
    return session;
  }

  describe('options', () => {
    it('takes none, or an http(s) api_url and a per_page from 1 to 100', () => {
      expect(curateNdConnector.validateOptions({})).toEqual([]);
      expect(
        curateNdConnector.validateOptions({ api_url: 'https://curate.example.edu/api', per_page: 100 }),
      ).toEqual([]);
    });

    it('names each bad option, without quoting its value', () => {
      const problems = curateNdConnector.validateOptions({
        api_url: 'https://someone:s3cret@curate.example.edu/api',
        per_page: 101,
        token: 'abc',
      });
      expect(problems).toEqual([
        'options.token is not a known option (api_url, per_page)',
        'options.api_url must not carry credentials: the token comes with each request',
        'options.per_page must be an integer from 1 to 100',
      ]);
      expect(problems.join(' ')).not.toMatch(/s3cret|abc/);
      expect(curateNdConnector.validateOptions({ api_url: 'ftp://curate.example.edu' })).toHaveLength(1);
      expect(curateNdConnector.validateOptions({ per_page: 2.5 })).toHaveLength(1);
      expect(curateNdConnector.validateOptions(['api_url'])).toEqual(['options must be an object']);
    });

    it("lists with the service's page size, at most the 100 rows CurateND gives", async () => {
      fake.addWork({ title: 'One', owner: 'alice' });
      const session = await connect({}, 500).open('alice-token');
      const page = await session.listResources({ page: 1 });
      expect(page.perPage).toBe(100);
      expect(searches(fake.server.requests).at(-1)).toMatchObject({ rows: '100' });
    });
  });

  describe('tokens', () => {
    it('sends the token as X-Api-Token and names the user from their own deposits', async () => {
      fake.addWork({ title: 'Deposited', owner: 'alice' });
      const session = await connect().open('alice-token');
      expect(session.username).toBe('alice');
      expect(fake.server.requests.map((request) => request.headers['x-api-token'])).toEqual(['alice-token']);
      expect(searches(fake.server.requests)).toEqual([{ editor: 'self', depositor: 'self', rows: '1' }]);
    });

    it("maps CurateND's 400 for a `self` search without a known token to 401", async () => {
      expect(await failureOf(connect().open('mallory-token'))).toEqual({
        status: 401,
        message: 'Token is invalid. Response returned a 400 status code.',
      });
      expect(fake.server.answers.at(-1)).toMatchObject({
        status: 400,
        body: { error: 'Invalid search request format. Please consult API documentation.' },
      });
    });

    it('accepts a token whose user has deposited nothing, under a placeholder name', async () => {
      const session = await connect().open('bob-token');
      expect(session.username).toBe('CurateND user');
    });
  });

  describe('ids', () => {
    it('uses CurateND ids, takes them with und: too, and finds a file by id under its work', async () => {
      const workId = fake.addWork({
        title: 'Soil Cores',
        owner: 'alice',
        files: { 'cores.csv': 'depth\n1\n' },
      });
      const session = await alice();
      const [listed] = (await session.listResources({ page: 1 })).resources;
      expect(listed).toEqual({
        kind: 'container',
        kindName: 'item',
        id: workId,
        container: null,
        title: 'Soil Cores',
      });
      expect(workId).toMatch(/^[0-9a-z]{11}$/);
      const prefixed = await session.getResource(`und:${workId}`);
      expect(prefixed).toMatchObject({ id: workId, title: 'Soil Cores' });
      const fileId = prefixed.children[0].id;
      const found = await session.listResources({ search: { filter: 'id', value: fileId }, page: 1 });
      expect(found.resources).toEqual([
        { kind: 'item', kindName: 'file', id: fileId, container: workId, title: 'cores.csv' },
      ]);
      expect(await session.getResource(fileId)).toMatchObject({ kind: 'item', kindName: 'file', id: fileId });
    });

    it('answers 404 for ids CurateND cannot have, without asking it', async () => {
      fake.addWork({ title: 'Known', owner: 'alice' });
      const session = await alice();
      for (const id of ['../items', 'a/b', 'abc.json', 'UND:abc', 'und:', '', 'x'.repeat(65), 'caf\u00e9']) {
        expect({ id, status: (await failureOf(session.getResource(id))).status }).toEqual({
          id,
          status: 404,
        });
        expect({ id, status: (await failureOf(session.keywords(id))).status }).toEqual({ id, status: 404 });
        expect({ id, status: (await failureOf(walked(session, id))).status }).toEqual({ id, status: 404 });
      }
      expect(fake.server.requests).toEqual([]);
      const found = await session.listResources({ search: { filter: 'id', value: '../items' }, page: 1 });
      expect(found.resources).toEqual([]);
    });

    it("answers 404 for a person's profile or a collection, which are neither works nor files", async () => {
      const person = fake.addPerson('alice');
      const collection = fake.addCollection('Theses', 'alice');
      const session = await alice();
      for (const id of [person, collection]) {
        expect((await failureOf(session.getResource(id))).status).toBe(404);
        expect((await failureOf(walked(session, id))).status).toBe(404);
      }
    });
  });

  describe('listing', () => {
    it("follows CurateND's pages one request each, last changed first, without profiles and collections", async () => {
      fake.addPerson('alice');
      fake.addCollection("Alice's collection", 'alice');
      const titles = Array.from({ length: 23 }, (_, i) => `Work ${String(i + 1).padStart(2, '0')}`);
      const ids = titles.map((title) => fake.addWork({ title, owner: 'alice' }));
      fake.addWork({ title: "Bob's public work", owner: 'bob', visibility: 'public' });
      // the oldest deposit, changed last, is the newest
      fake.touch(ids[0]);
      const session = await alice();
      const pages = [];
      for (let page = 1; page <= 4; page++) pages.push(await session.listResources({ page }));
      const newestFirst = [titles[0], ...titles.slice(1).reverse()];
      expect(pages.map((page) => page.resources.map((resource) => resource.title))).toEqual([
        newestFirst.slice(0, 10),
        newestFirst.slice(10, 20),
        newestFirst.slice(20),
        [],
      ]);
      // 25 results of alice's: her profile and collection count in CurateND's total
      expect(pages.map((page) => [page.totalPages, page.perPage])).toEqual(Array(4).fill([3, 10]));
      expect(searches(fake.server.requests)).toEqual(
        [1, 2, 3, 4].map((page) => ({
          editor: 'self',
          page: String(page),
          rows: '10',
          sort: 'modify_date desc',
        })),
      );
    });
  });

  describe('search', () => {
    beforeEach(() => {
      fake.addWork({ title: 'Coral Reef Survey', owner: 'alice', subjects: ['oceans', 'reefs'] });
      fake.addWork({ title: 'Desert Survey', owner: 'alice', subjects: ['sand'] });
      fake.addWork({ title: 'Reef Fish Counts', owner: 'bob', visibility: 'public', subjects: ['reefs'] });
      fake.addWork({ title: 'Private Reef Notes', owner: 'bob', subjects: ['reefs'] });
    });

    async function titlesFound(filter: 'general' | 'title', value: string): Promise<string[]> {
      const session = await alice();
      const found = await session.listResources({ search: { filter, value }, page: 1 });
      return found.resources.map((resource) => resource.title).sort();
    }

    it("general: CurateND's own search (q) over every work the user may read", async () => {
      expect(await titlesFound('general', 'reefs')).toEqual(['Coral Reef Survey', 'Reef Fish Counts']);
      expect(searches(fake.server.requests)).toEqual([
        { q: 'reefs', page: '1', rows: '10', sort: 'modify_date desc' },
      ]);
    });

    /** The anonymous search that tells whether CurateND has the title filter. */
    const titleFilterProbe = { title: 'self', rows: '1' };

    it("title: the title filter, one phrase even where the value holds CurateND's separators", async () => {
      expect(await titlesFound('title', 'Reef, Survey')).toEqual(['Coral Reef Survey']);
      expect(searches(fake.server.requests)).toEqual([
        titleFilterProbe,
        { title: 'Reef Survey', page: '1', rows: '10', sort: 'modify_date desc' },
      ]);
      expect(await titlesFound('title', '"reef"')).toEqual(['Coral Reef Survey', 'Reef Fish Counts']);
    });

    it('title: on a CurateND without the title filter, its title search field, found out once and without the token', async () => {
      fake.titleFilter = false;
      const connector = connect();
      const session = await connector.open('alice-token');
      fake.server.requests.length = 0;
      const titles = async (value: string) =>
        (await session.listResources({ search: { filter: 'title', value }, page: 1 })).resources
          .map((resource) => resource.title)
          .sort();
      expect(await titles('Reef, Survey')).toEqual(['Coral Reef Survey']);
      expect(await titles('reef')).toEqual(['Coral Reef Survey', 'Reef Fish Counts']);
      expect(
        await (
          await connector.open('bob-token')
        ).listResources({ search: { filter: 'title', value: 'notes' }, page: 1 }),
      ).toMatchObject({ resources: [{ title: 'Private Reef Notes' }] });
      const titleSearch = (q: string) => ({
        q,
        search_field: 'title',
        page: '1',
        rows: '10',
        sort: 'modify_date desc',
      });
      expect(searches(fake.server.requests)).toEqual([
        titleFilterProbe,
        titleSearch('"Reef Survey"'),
        titleSearch('"reef"'),
        { editor: 'self', depositor: 'self', rows: '1' },
        titleSearch('"notes"'),
      ]);
      expect(fake.server.requests[0].headers['x-api-token']).toBeUndefined();
    });

    it('id: the one work or file of that id the user may read, found without a search', async () => {
      const privateId = fake.addWork({ title: 'Hidden', owner: 'bob' });
      const session = await alice();
      for (const value of [privateId, 'zzzzzzzzzzz']) {
        const found = await session.listResources({ search: { filter: 'id', value }, page: 1 });
        expect(found).toEqual({ resources: [], totalPages: 1, perPage: 10 });
      }
      expect(searches(fake.server.requests)).toEqual([]);
    });

    it('refuses the filters CurateND cannot search by', async () => {
      const session = await alice();
      for (const filter of ['author', 'keywords'] as const)
        expect(
          (await failureOf(session.listResources({ search: { filter, value: 'x' }, page: 1 }))).status,
        ).toBe(400);
    });
  });

  describe('detail and keywords', () => {
    it('dates in UTC, the other fields in extra, and a file with its md5, size and type', async () => {
      const workId = fake.addWork({
        title: 'Lake Samples',
        owner: 'alice',
        subjects: ['limnology', 'water'],
        files: { 'samples.csv': 'lake,ph\nA,7\n' },
      });
      const session = await alice();
      const work = await session.getResource(workId);
      expect(work.dateCreated).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      expect(work.extra).toMatchObject({
        subject: ['limnology', 'water'],
        depositor: 'alice',
        hasModel: 'Dataset',
        access: { editPerson: ['alice'] },
      });
      expect(Object.keys(work.extra)).not.toEqual(expect.arrayContaining(['title', 'containedFiles']));
      const file = await session.getResource(work.children[0].id);
      expect(file).toMatchObject({
        title: 'samples.csv',
        hashes: { md5: md5('lake,ph\nA,7\n'), sha256: null },
        extra: {
          size: 12,
          mimeType: 'application/octet-stream',
          isPartOf: [`${fake.server.origin}/api/items/${workId}`],
        },
      });
      expect(file.extra).not.toHaveProperty('characterization');
      expect(await session.keywords(workId)).toEqual(['limnology', 'water']);
      expect(await session.keywords(file.id)).toEqual([]);
    });

    it('reads the md5 of a characterization whose elements carry a namespace prefix', async () => {
      const workId = fake.addWork({
        title: 'Prefixed',
        owner: 'alice',
        files: { 'a.bin': 'abc' },
        characterization: 'namespaced',
      });
      const session = await alice();
      const [file] = (await walked(session, workId)).filter(
        (entry): entry is RemoteFile => entry.kind === 'file',
      );
      expect(file.size).toBe(3);
      expect(await file.sourceHashes(['md5'])).toEqual({ md5: md5('abc') });
    });

    it('has no md5 for a file not yet characterized, and takes its size from the download', async () => {
      const workId = fake.addWork({
        title: 'Fresh',
        owner: 'alice',
        files: { 'new.txt': 'just deposited' },
        characterization: 'missing',
      });
      fake.addFile(workId, 'measured.txt', 'no size measured', 'without-size');
      const session = await alice();
      const work = await session.getResource(workId);
      const fresh = await session.getResource(work.children.find((child) => child.title === 'new.txt')!.id);
      expect(fresh.hashes).toEqual({ md5: null, sha256: null });
      const files = (await walked(session, workId)).filter(
        (entry): entry is RemoteFile => entry.kind === 'file',
      );
      expect(files.map((file) => [file.path, file.size])).toEqual([
        ['Fresh/measured.txt', 16],
        ['Fresh/new.txt', 14],
      ]);
      expect(await files[0].sourceHashes(['md5'])).toEqual({ md5: md5('no size measured') });
      expect(await files[1].sourceHashes(['md5'])).toEqual({});
      expect((await readAll(await files[1].open())).toString()).toBe('just deposited');
    });

    it("asks a file's size with HEAD when its characterization has none, reading its bytes only when opened", async () => {
      const workId = fake.addWork({ title: 'Sized', owner: 'alice' });
      const fileId = fake.addFile(workId, 'measured.txt', 'no size measured', 'without-size');
      const session = await alice();
      const downloads = () =>
        fake.server.requests
          .filter((request) => request.url.includes('/items/download/'))
          .map((request) => `${request.method} ${request.url}`);
      const [, file] = await walked(session, workId);
      expect(file).toMatchObject({ kind: 'file', size: 16 });
      expect(downloads()).toEqual([`HEAD /api/items/download/${fileId}`]);
      expect(file.kind === 'file' && (await readAll(await file.open())).toString()).toBe('no size measured');
      expect(downloads()).toEqual([
        `HEAD /api/items/download/${fileId}`,
        `GET /api/items/download/${fileId}`,
      ]);
    });
  });

  describe('walk', () => {
    it('names files safely and uniquely within their work', async () => {
      const workId = fake.addWork({ title: 'Field/Notes', owner: 'alice', files: { 'notes.txt': 'first' } });
      fake.addFile(workId, 'notes.txt', 'second');
      fake.addFile(workId, 'raw/data.csv', 'x');
      const session = await alice();
      const entries = await walked(session, workId);
      const contents: Record<string, string> = {};
      for (const entry of entries)
        contents[entry.path] = entry.kind === 'file' ? (await readAll(await entry.open())).toString() : '';
      expect(contents).toEqual({
        Field_Notes: '',
        'Field_Notes/notes.txt': 'first',
        'Field_Notes/notes (2).txt': 'second',
        'Field_Notes/raw_data.csv': 'x',
      });
    });

    it('never sends the token to the host a download redirects to', async () => {
      const workId = fake.addWork({
        title: 'Moved',
        owner: 'alice',
        files: { 'kept.txt': 'stored elsewhere' },
      });
      fake.redirectDownloads = true;
      const session = await alice();
      const [, file] = await walked(session, workId);
      expect(file.kind === 'file' && (await readAll(await file.open())).toString()).toBe('stored elsewhere');
      expect(fake.storage.requests).toHaveLength(1);
      expect(fake.storage.requests[0].headers['x-api-token']).toBeUndefined();
      expect(fake.server.requests.every((request) => request.headers['x-api-token'] === 'alice-token')).toBe(
        true,
      );
    });
  });

  describe('faults', () => {
    it('waits as long as a 429 asks, then carries on', async () => {
      fake.addWork({ title: 'Patient', owner: 'alice' });
      const session = await alice();
      fake.server.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        match: { path: /\/items$/ },
      });
      const started = Date.now();
      const page = await session.listResources({ page: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(page.resources.map((resource) => resource.title)).toEqual(['Patient']);
      expect(searches(fake.server.requests)).toHaveLength(2);
    });

    it('names CurateND when it keeps failing', async () => {
      const workId = fake.addWork({ title: 'Unlucky', owner: 'alice' });
      const session = await alice();
      fake.server.inject({ kind: 'status', status: 503, times: 10, body: { error: 'Service Unavailable' } });
      expect(await failureOf(session.getResource(workId))).toEqual({
        status: 502,
        message: `CurateND answered 503: Service Unavailable (/api/items/${workId}).`,
      });
    });

    it('retries a download that failed before its first byte', async () => {
      const workId = fake.addWork({
        title: 'Retried',
        owner: 'alice',
        files: { 'r.txt': 'bytes after all' },
      });
      const session = await alice();
      const [, file] = await walked(session, workId);
      fake.server.inject({ kind: 'status', status: 502, match: { path: /\/items\/download\// } });
      expect(file.kind === 'file' && (await readAll(await file.open())).toString()).toBe('bytes after all');
    });
  });

  describe('status', () => {
    it('asks the public search for one result, without a token', async () => {
      expect(await connect().status()).toEqual({ ok: true, detail: 'Connected to server successfully' });
      expect(fake.server.requests.map((request) => [request.url, request.headers['x-api-token']])).toEqual([
        ['/api/items?rows=1', undefined],
      ]);
    });
  });
});
