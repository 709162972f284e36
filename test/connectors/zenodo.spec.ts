import { createHash } from 'node:crypto';
import type { Connector, ConnectorSession, RemoteFile } from '@app/connectors/connector';
import { zenodoConnector, type ZenodoOptions } from '@app/connectors/zenodo';
import { ZenodoFake } from '../fakes/zenodo/zenodo-fake';
import { connectorContext, TEST_UPSTREAM } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';

// Zenodo publishes no OpenAPI description of its deposit API, so the fake's answers follow the prose of
// https://developers.zenodo.org/ (each handler cites its section) and cannot be checked against one.

const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');

describe('zenodo connector', () => {
  let fake: ZenodoFake;
  let owner: number;

  beforeAll(async () => {
    fake = await new ZenodoFake().start();
  });

  beforeEach(() => {
    fake.reset();
    fake.rateLimit.limit = 1000;
    fake.rateLimit.windowMs = 60_000;
    owner = fake.addUser('alice-token');
  });

  afterAll(async () => {
    await fake.stop();
  });

  function connect(options: Partial<ZenodoOptions> = {}): Connector {
    return zenodoConnector.create({ api_url: fake.server.url, per_page: 5, ...options }, connectorContext());
  }

  const openAlice = (options: Partial<ZenodoOptions> = {}): Promise<ConnectorSession> =>
    connect(options).open('alice-token');

  /** Requests the fake received, as `METHOD path?query`, after the session was opened. */
  function requestsSince(start: number): string[] {
    return fake.server.requests
      .slice(start)
      .map((request) => `${request.method} ${decodeURIComponent(request.url)}`);
  }

  describe('options', () => {
    it('accepts none, and names each option that is wrong without quoting values', () => {
      expect(zenodoConnector.validateOptions({})).toEqual([]);
      expect(
        zenodoConnector.validateOptions({
          api_url: 'https://sandbox.zenodo.org/api',
          publish: true,
          upload_type: 'dataset',
          per_page: 100,
        }),
      ).toEqual([]);
      expect(zenodoConnector.validateOptions('zenodo')).toEqual(['options must be an object']);
      const problems = zenodoConnector.validateOptions({
        api_url: 'ftp://zenodo.org',
        publish: 'yes',
        upload_type: 'publication',
        per_page: 101,
        token: 's3cret-token',
      });
      expect(problems).toHaveLength(5);
      for (const option of ['api_url', 'publish', 'upload_type', 'per_page', 'token'])
        expect(problems.some((problem) => problem.startsWith(`options.${option} `))).toBe(true);
      expect(problems.join(' ')).not.toContain('s3cret-token');
      expect(zenodoConnector.validateOptions({ upload_type: 'banana' })).toHaveLength(1);
    });
  });

  describe('tokens', () => {
    it('sends the token as a Bearer header, never in the query string, and names the user by owner', async () => {
      fake.seed(owner, { title: 'Mine' });
      const session = await openAlice();
      await session.listResources({ page: 1 });
      expect(session.username).toBe(`Zenodo user ${owner}`);
      for (const request of fake.server.requests) {
        expect(request.headers.authorization).toBe('Bearer alice-token');
        expect(request.url).not.toContain('access_token');
      }
    });

    it('answers 401 for a token Zenodo refuses, and for one without the deposit scopes (403)', async () => {
      expect(await failureOf(connect().open('mallory-token'))).toEqual({
        status: 401,
        message: 'Token is invalid. Response returned a 401 status code.',
      });
      fake.server.inject({ kind: 'status', status: 403, body: { message: 'Missing scope', status: 403 } });
      expect((await failureOf(openAlice())).message).toContain('403');
    });

    it('reports the status of the deposit API without a token', async () => {
      expect(await connect().status()).toEqual({ ok: true, detail: 'Connected to server successfully' });
      expect(fake.server.requests.at(-1)?.headers.authorization).toBeUndefined();
      const down = zenodoConnector.create({ api_url: 'http://127.0.0.1:9/api' }, connectorContext());
      expect((await down.status()).ok).toBe(false);
    });
  });

  describe('ids', () => {
    it('gives a deposition its record id and a file <deposition>:<file>, and reads both back', async () => {
      const deposition = fake.seed(owner, { title: 'Ids', files: { 'a.txt': 'a' } });
      const session = await openAlice();
      const detail = await session.getResource(String(deposition.id));
      expect(detail.id).toBe(String(deposition.id));
      expect(detail.id).toMatch(/^\d{8,}$/);
      const [child] = detail.children;
      expect(child.id).toBe(`${deposition.id}:${deposition.files[0].id}`);
      expect((await session.getResource(child.id)).id).toBe(child.id);
    });

    it('answers 404 for malformed ids without asking Zenodo, and for well-formed ids of nothing', async () => {
      const deposition = fake.seed(owner, { title: 'Known', files: { 'a.txt': 'a' } });
      const session = await openAlice();
      const start = fake.server.requests.length;
      for (const id of [
        '12.5',
        '007',
        '-1',
        `${deposition.id}:`,
        `:${deposition.files[0].id}`,
        'a:b:c',
        `${deposition.id}:a/b`,
      ]) {
        expect({ id, status: (await failureOf(session.getResource(id))).status }).toEqual({
          id,
          status: 404,
        });
        expect({ id, status: (await failureOf(session.keywords(id))).status }).toEqual({ id, status: 404 });
      }
      expect(fake.server.requests.length).toBe(start);
      expect((await failureOf(session.getResource('99999999'))).status).toBe(404);
      expect((await failureOf(session.getResource(`${deposition.id}:0000-1111`))).status).toBe(404);
    });
  });

  describe('listing', () => {
    it("follows Zenodo's pages, newest first, asking for one deposition past a full page to know if more follow", async () => {
      for (let i = 1; i <= 12; i++) fake.seed(owner, { title: `Deposition ${String(i).padStart(2, '0')}` });
      const session = await openAlice();
      const start = fake.server.requests.length;
      const pages = [];
      for (const page of [1, 2, 3, 4]) pages.push(await session.listResources({ page }));
      expect(pages.map((page) => page.resources.map((resource) => resource.title.slice(-2)))).toEqual([
        ['12', '11', '10', '09', '08'],
        ['07', '06', '05', '04', '03'],
        ['02', '01'],
        [],
      ]);
      expect(pages.map((page) => page.totalPages)).toEqual([2, 3, 3, 3]);
      expect(requestsSince(start)).toEqual([
        'GET /api/deposit/depositions?page=1&size=5&sort=mostrecent',
        'GET /api/deposit/depositions?page=6&size=1&sort=mostrecent',
        'GET /api/deposit/depositions?page=2&size=5&sort=mostrecent',
        'GET /api/deposit/depositions?page=11&size=1&sort=mostrecent',
        'GET /api/deposit/depositions?page=3&size=5&sort=mostrecent',
        'GET /api/deposit/depositions?page=4&size=5&sort=mostrecent',
      ]);
      expect(pages[0].resources[0]).toEqual({
        kind: 'container',
        kindName: 'dataset',
        id: expect.stringMatching(/^\d+$/),
        container: null,
        title: 'Deposition 12',
      });
    });

    it('searches with q: title and keywords as fields, general as free text, each value one phrase', async () => {
      const reef = fake.seed(owner, { title: 'Coral Reef Survey', keywords: ['marine biology'] });
      fake.seed(owner, { title: 'Reef "Coral" Notes', keywords: ['coral'] });
      fake.seed(owner, { title: 'Desert Soil', keywords: ['sand'] });
      const session = await openAlice();
      const titles = async (filter: 'general' | 'title' | 'keywords', value: string) => {
        const start = fake.server.requests.length;
        const found = await session.listResources({ search: { filter, value }, page: 1 });
        return {
          q: new URL(fake.server.requests[start].url, 'http://x').searchParams.get('q'),
          titles: found.resources.map((r) => r.title),
        };
      };
      expect(await titles('title', 'coral reef')).toEqual({
        q: 'title:"coral reef"',
        titles: ['Coral Reef Survey'],
      });
      expect(await titles('keywords', 'marine biology')).toEqual({
        q: 'keywords:"marine biology"',
        titles: ['Coral Reef Survey'],
      });
      expect(await titles('general', 'soil')).toEqual({ q: '"soil"', titles: ['Desert Soil'] });
      expect(await titles('title', 'reef "coral"')).toEqual({
        q: 'title:"reef \\"coral\\""',
        titles: ['Reef "Coral" Notes'],
      });

      const byId = await session.listResources({ search: { filter: 'id', value: String(reef.id) }, page: 1 });
      expect(byId.resources.map((resource) => resource.title)).toEqual(['Coral Reef Survey']);
      const theirs = fake.seed(fake.addUser('bob-token'), { title: 'Not yours' });
      for (const value of [String(theirs.id), '99999999', 'coral'])
        expect((await session.listResources({ search: { filter: 'id', value }, page: 1 })).resources).toEqual(
          [],
        );
      expect(
        (await failureOf(session.listResources({ search: { filter: 'author', value: 'x' }, page: 1 })))
          .status,
      ).toBe(400);
    });
  });

  describe('detail and walk', () => {
    it('shows a deposition with its metadata (without the DOI fields), dates and files', async () => {
      const deposition = fake.seed(owner, {
        title: 'Detailed',
        uploadType: 'software',
        keywords: ['code'],
        files: { 'b.txt': 'bee', 'a.txt': 'a' },
      });
      const detail = await (await openAlice()).getResource(String(deposition.id));
      expect(detail).toMatchObject({ kind: 'container', kindName: 'software', title: 'Detailed' });
      expect(detail.dateCreated).toBe(new Date(deposition.created).toISOString());
      expect(detail.extra).toMatchObject({
        upload_type: 'software',
        keywords: ['code'],
        state: 'unsubmitted',
      });
      expect(detail.extra).not.toHaveProperty('prereserve_doi');
      expect(detail.children.map((child) => child.title)).toEqual(['a.txt', 'b.txt']);
      const file = await (await openAlice()).getResource(detail.children[1].id);
      expect(file).toMatchObject({
        kind: 'item',
        kindName: 'file',
        hashes: { md5: md5('bee'), sha256: null },
      });
      expect(file.extra).toEqual({ size: 3, deposition: String(deposition.id) });
    });

    it('shows in extra only the metadata fields Zenodo documents, not the others it answers', async () => {
      const deposition = fake.seed(owner, {
        title: 'Documented',
        license: 'cc-by-4.0',
        custom: { 'code:codeRepository': 'https://example.org/code' },
      });
      const detail = await (await openAlice()).getResource(String(deposition.id));
      expect(detail.extra).toEqual({
        title: 'Documented',
        upload_type: 'dataset',
        description: 'About Documented',
        creators: [{ name: 'Doe, Jane' }],
        license: 'cc-by-4.0',
        state: 'unsubmitted',
        submitted: false,
      });
    });

    it('streams files from their download links, sending the token to no storage host they redirect to', async () => {
      const storage = await fake.redirectDownloads();
      const big = Buffer.alloc(2 << 20, 7);
      const deposition = fake.seed(owner, {
        title: 'Stored / elsewhere',
        files: { 'big.bin': big, 'small.txt': 'small' },
      });
      const session = await openAlice();
      const entries = [];
      for await (const entry of session.walk(String(deposition.id))) entries.push(entry);
      expect(entries.map((entry) => entry.path)).toEqual([
        'Stored _ elsewhere',
        'Stored _ elsewhere/big.bin',
        'Stored _ elsewhere/small.txt',
      ]);
      const files = entries.filter((entry): entry is RemoteFile => entry.kind === 'file');
      expect((await readAll(await files[0].open())).equals(big)).toBe(true);
      expect(await files[1].sourceHashes(['sha256', 'md5'])).toEqual({ md5: md5('small') });
      expect(storage.requests).toHaveLength(1);
      expect(storage.requests[0].headers.authorization).toBeUndefined();
      expect(
        fake.server.requests.some((request) => request.url.includes('/draft/files/big.bin/content')),
      ).toBe(true);
    });

    it('resumes a download cut off midway', async () => {
      const content = Buffer.alloc(1 << 20, 3);
      const deposition = fake.seed(owner, { title: 'Cut', files: { 'data.bin': content } });
      const session = await openAlice();
      const [file] = (await session.getResource(String(deposition.id))).children;
      fake.server.inject({ kind: 'cut', afterBytes: 100_000, match: { path: /\/content$/ } });
      const walked = [];
      for await (const entry of session.walk(file.id)) walked.push(entry);
      expect(walked).toHaveLength(1);
      expect((await readAll(await (walked[0] as RemoteFile).open())).equals(content)).toBe(true);
      expect(fake.server.requests.filter((request) => request.headers.range).length).toBe(1);
    });
  });

  describe('writing', () => {
    it('makes a draft deposition with the configured upload type, a description and the user as creator', async () => {
      // found by the title search that numbers titles, but no title the new one could clash with
      fake.seed(owner, { title: 'Old Field Data (2)' });
      const session = await openAlice({ upload_type: 'dataset' });
      const made = await session.createProject('  Field Data  ');
      const stored = fake.state.depositions.get(Number(made.id))!;
      expect(made).toMatchObject({ kind: 'container', kindName: 'dataset', title: 'Field Data' });
      expect(stored.metadata).toMatchObject({
        title: 'Field Data',
        upload_type: 'dataset',
        creators: [{ name: `Zenodo user ${owner}` }],
        description: expect.any(String),
      });
      expect(stored.submitted).toBe(false);
      expect((await session.createProject('Field Data')).title).toBe('Field Data (2)');
      expect((await session.createProject('Field Data')).title).toBe('Field Data (3)');
      expect((await session.createProject('Data (raw) v1.0')).title).toBe('Data (raw) v1.0');
      expect((await session.createProject('Data (raw) v1.0')).title).toBe('Data (raw) v1.0 (2)');
      expect((await failureOf(session.createProject('   '))).status).toBe(400);
    });

    it('publishes a deposition made for the job at commit when publish is set, and only then', async () => {
      for (const publish of [false, true]) {
        const session = await openAlice({ publish });
        const made = await session.createProject(`Published ${publish}`);
        const writer = await session.openWriter(made.id, { newProject: true, message: 'test' });
        await writer.putFile(['data.csv'], countedFile('x,y\n'), 'ignore');
        expect(fake.state.depositions.get(Number(made.id))!.submitted).toBe(false);
        await writer.commit();
        expect(fake.state.depositions.get(Number(made.id))!.state).toBe(publish ? 'done' : 'unsubmitted');
      }
    });

    it('streams files into the bucket with their length, refusing folders and published depositions', async () => {
      const session = await openAlice();
      const made = await session.createProject('Flat');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'test' });
      const start = fake.server.requests.length;
      const result = await writer.putFile(['notes.txt'], countedFile('hello'), 'ignore');
      const upload = fake.server.requests[start];
      expect(upload.method).toBe('PUT');
      expect(upload.url).toMatch(/^\/api\/files\/[0-9a-f-]+\/notes\.txt$/);
      expect(upload.headers['content-length']).toBe('5');
      const stored = fake.state.depositions.get(Number(made.id))!.files[0];
      expect(result).toEqual({
        outcome: 'created',
        id: `${made.id}:${stored.id}`,
        path: '/Flat/notes.txt',
        hashes: { md5: md5('hello') },
        // what taking the job back would delete
        staged: { created: stored.id },
      });
      const nested = await failureOf(writer.putFile(['data', 'raw.csv'], countedFile('x'), 'ignore'));
      expect(nested).toEqual({ status: 400, message: expect.stringContaining('Zenodo keeps no folders') });
      expect((await failureOf(writer.putFile(['..'], countedFile('x'), 'ignore'))).status).toBe(400);

      const published = fake.seed(owner, { title: 'Done', files: { 'a.txt': 'a' }, published: true });
      const refused = await failureOf(
        session.openWriter(String(published.id), { newProject: false, message: 'x' }),
      );
      expect(refused).toEqual({ status: 400, message: expect.stringContaining('published') });
    });

    it('leaves a duplicate unread with ignore, and with update reads it once and uploads it only when it differs', async () => {
      const deposition = fake.seed(owner, {
        title: 'Dupes',
        files: { 'same.txt': 'one', 'changed.txt': 'one' },
      });
      const before = deposition.files.map((file) => file.id);
      const session = await openAlice();
      const writer = await session.openWriter(String(deposition.id), { newProject: false, message: 'x' });
      const ignored = countedFile('two');
      expect((await writer.putFile(['changed.txt'], ignored, 'ignore')).outcome).toBe('ignored');
      expect(ignored.opened).toBe(0);
      const start = fake.server.requests.length;
      const same = countedFile('one');
      expect(await writer.putFile(['same.txt'], same, 'update')).toMatchObject({
        outcome: 'ignored',
        hashes: { md5: md5('one') },
      });
      expect(same.opened).toBe(1);
      expect(requestsSince(start)).toEqual([]);
      const changed = countedFile('two');
      expect(await writer.putFile(['changed.txt'], changed, 'update')).toMatchObject({
        outcome: 'updated',
        hashes: { md5: md5('two') },
      });
      expect(changed.opened).toBe(2);
      const after = fake.state.depositions.get(deposition.id)!.files;
      expect(after.map((file) => [file.key, file.content.toString()])).toEqual([
        ['same.txt', 'one'],
        ['changed.txt', 'two'],
      ]);
      expect(after[0].id).toBe(before[0]);
      expect(after[1].id).not.toBe(before[1]);
    });
  });

  describe('keywords', () => {
    it('writes metadata.keywords and keeps every other field of the metadata', async () => {
      const deposition = fake.seed(owner, { title: 'Tagged', keywords: ['old'], uploadType: 'software' });
      const session = await openAlice();
      expect(await session.setKeywords(String(deposition.id), ['new', 'newer'])).toEqual(['new', 'newer']);
      expect(fake.state.depositions.get(deposition.id)!.metadata).toEqual({
        title: 'Tagged',
        upload_type: 'software',
        description: 'About Tagged',
        creators: [{ name: 'Doe, Jane' }],
        keywords: ['new', 'newer'],
      });
    });

    it('refuses keywords of a file, and changing those of a published deposition', async () => {
      const deposition = fake.seed(owner, {
        title: 'Done',
        keywords: ['kept'],
        files: { 'a.txt': 'a' },
        published: true,
      });
      const session = await openAlice();
      const fileId = `${deposition.id}:${deposition.files[0].id}`;
      expect((await failureOf(session.keywords(fileId))).status).toBe(400);
      expect((await failureOf(session.setKeywords(fileId, ['x']))).status).toBe(400);
      expect(await session.keywords(String(deposition.id))).toEqual(['kept']);
      const refused = await failureOf(session.setKeywords(String(deposition.id), ['x']));
      expect(refused).toEqual({ status: 400, message: expect.stringContaining('published') });
    });
  });

  describe('published records of other users', () => {
    let bob: number;
    beforeEach(() => {
      bob = fake.addUser('bob-token');
    });

    /** Bob's published record, read by Alice. */
    function seedBobsRecord() {
      return fake.seed(bob, {
        title: 'Open Record',
        uploadType: 'software',
        keywords: ['open'],
        license: 'cc-by-4.0',
        custom: { 'code:codeRepository': 'https://example.org/code' },
        files: { 'b.txt': 'bee', 'a.txt': 'alpha' },
        published: true,
      });
    }

    it('shows, finds by id and walks another user’s published record through GET records/{id}', async () => {
      const record = seedBobsRecord();
      const id = String(record.id);
      const session = await openAlice();
      const start = fake.server.requests.length;
      const detail = await session.getResource(id);
      expect(requestsSince(start)).toEqual([`GET /api/deposit/depositions/${id}`, `GET /api/records/${id}`]);
      expect(detail).toMatchObject({ kind: 'container', kindName: 'software', id, title: 'Open Record' });
      expect(detail.extra).toEqual({
        title: 'Open Record',
        upload_type: 'software',
        description: 'About Open Record',
        creators: [{ name: 'Doe, Jane' }],
        keywords: ['open'],
        license: 'cc-by-4.0',
        access_right: 'open',
        state: 'done',
        submitted: true,
      });
      expect(detail.children.map((child) => child.title)).toEqual(['a.txt', 'b.txt']);
      const file = await session.getResource(detail.children[1].id);
      expect(file).toMatchObject({ kind: 'item', title: 'b.txt', hashes: { md5: md5('bee'), sha256: null } });
      const found = await session.listResources({ page: 1, search: { filter: 'id', value: id } });
      expect(found.resources.map((resource) => resource.id)).toEqual([id]);
      expect(await session.keywords(id)).toEqual(['open']);

      const walked: RemoteFile[] = [];
      for await (const entry of session.walk(id)) if (entry.kind === 'file') walked.push(entry);
      expect(walked.map((entry) => entry.path)).toEqual(['Open Record/a.txt', 'Open Record/b.txt']);
      expect((await readAll(await walked[1].open())).toString()).toBe('bee');
      expect(await walked[1].sourceHashes(['md5'])).toEqual({ md5: md5('bee') });
      const single = [];
      for await (const entry of session.walk(detail.children[0].id)) single.push(entry);
      expect(single).toMatchObject([{ kind: 'file', path: 'a.txt', size: 5 }]);
    });

    it('refuses writes into it with 403, sending Zenodo none', async () => {
      const record = seedBobsRecord();
      const id = String(record.id);
      const session = await openAlice();
      const message = `Zenodo record ${id} is another user's published record: it can be read and downloaded here, not changed.`;
      expect(await failureOf(session.openWriter(id, { newProject: false, message: 'test' }))).toEqual({
        status: 403,
        message,
      });
      expect(await failureOf(session.setKeywords(id, ['mine']))).toEqual({ status: 403, message });
      expect(fake.server.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    });

    it('still answers 403 for another user’s unpublished deposition, 404 for no record, 410 for a deleted one', async () => {
      const draft = fake.seed(bob, { title: 'Draft' });
      const deleted = seedBobsRecord();
      deleted.removed = true;
      const session = await openAlice();
      expect((await failureOf(session.getResource(String(draft.id)))).status).toBe(403);
      expect((await failureOf(session.getResource('99999999'))).status).toBe(404);
      expect((await failureOf(session.getResource(String(deleted.id)))).status).toBe(410);
    });
  });

  describe('faults', () => {
    it("waits out Zenodo's rate limit (429 with Retry-After) and carries on", async () => {
      fake.seed(owner, { title: 'Limited' });
      const session = await openAlice();
      fake.rateLimit.clear();
      fake.rateLimit.limit = 1;
      fake.rateLimit.windowMs = 1000;
      const started = Date.now();
      const [first, second] = [
        await session.listResources({ page: 1 }),
        await session.listResources({ page: 1 }),
      ];
      expect(first.resources.map((resource) => resource.title)).toEqual(['Limited']);
      expect(second).toEqual(first);
      const limited = fake.server.answers.filter((answer) => answer.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('gives up on a lasting 5xx with an error that names Zenodo', async () => {
      const session = await openAlice();
      fake.server.inject({ kind: 'status', status: 503, times: TEST_UPSTREAM.retries + 1 });
      const failed = await failureOf(session.listResources({ page: 1 }));
      expect(failed.status).toBe(502);
      expect(failed.message).toMatch(/^Zenodo answered 503/);
      expect(failed.message).not.toContain('alice-token');
    });
  });
});
