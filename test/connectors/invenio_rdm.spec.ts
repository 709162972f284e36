import { createHash, randomBytes } from 'node:crypto';
import type { Connector, ConnectorSession } from '@app/connectors/connector';
import { invenioRdmConnector, type InvenioRdmOptions } from '@app/connectors/invenio_rdm';
import { FakeServer } from '../fakes/fake-server';
import { InvenioFake } from '../fakes/invenio_rdm/invenio-fake';
import type { User } from '../fakes/invenio_rdm/model';
import { connectorContext, TEST_UPSTREAM } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';

// InvenioRDM publishes no OpenAPI description of its REST API that covers answers (the reference pages give
// examples), so the fake follows https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/ and the
// server's source (each handler cites it).

const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');

describe('invenio_rdm connector', () => {
  let fake: InvenioFake;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    fake = await new InvenioFake().start();
  });

  beforeEach(() => {
    fake.reset();
    alice = fake.addUser('alice-token', 'Alice Example');
    bob = fake.addUser('bob-token', 'Bob Other');
  });

  afterAll(async () => {
    await fake.stop();
  });

  function connect(options: Partial<InvenioRdmOptions> = {}): Connector {
    return invenioRdmConnector.create(
      { api_url: `${fake.server.url}/`, per_page: 5, ...options },
      connectorContext(),
    );
  }

  const openAlice = (): Promise<ConnectorSession> => connect().open('alice-token');

  /** Requests the fake received from `start` on, as `METHOD path?query`. */
  function requestsSince(start: number): string[] {
    return fake.server.requests
      .slice(start)
      .map((request) => `${request.method} ${decodeURIComponent(request.url)}`);
  }

  async function walkAll(session: ConnectorSession, id: string): Promise<Record<string, Buffer>> {
    const files: Record<string, Buffer> = {};
    for await (const entry of session.walk(id))
      if (entry.kind === 'file') files[entry.path] = await readAll(await entry.open());
    return files;
  }

  describe('options', () => {
    it('takes an instance URL and a page size, naming each option that is wrong', () => {
      expect(invenioRdmConnector.validateOptions({})).toEqual([]);
      expect(
        invenioRdmConnector.validateOptions({ api_url: 'https://repository.tugraz.at/api/', per_page: 100 }),
      ).toEqual([]);
      expect(
        invenioRdmConnector.validateOptions({ api_url: 'ftp://x', per_page: 101, publish: true }),
      ).toEqual([
        'options.publish is not a known option (api_url, per_page)',
        expect.stringMatching(/^options\.api_url /),
        expect.stringMatching(/^options\.per_page /),
      ]);
    });
  });

  describe('tokens', () => {
    it('answers 401 for a token the instance treats as anonymous (its 403 on the user records), before anything else', async () => {
      const start = fake.server.requests.length;
      const failed = await failureOf(connect().open('mallory-token'));
      expect(failed.status).toBe(401);
      expect(requestsSince(start)).toEqual(['GET /api/user/records?page=1&size=1&sort=newest']);
      expect(fake.server.answers.at(-1)).toMatchObject({ status: 403 });
    });

    it('names the user by their profile once they have a record, and sends the token as a Bearer header', async () => {
      expect((await openAlice()).username).toBe('InvenioRDM user');
      fake.seed(alice, { title: 'Mine' });
      expect((await openAlice()).username).toBe('Alice Example');
      expect(fake.server.requests.at(-1)?.headers.authorization).toBe('Bearer alice-token');
      expect(fake.server.requests.every((request) => !request.url.includes('alice-token'))).toBe(true);
    });

    it('sends the token only to the configured origin: a download redirected elsewhere goes without it', async () => {
      const storage = await new FakeServer('storage').start();
      try {
        storage.route('GET', '/object', (_request, answer) => answer.send(200, Buffer.from('stored bytes')));
        const record = fake.seed(alice, { title: 'Redirected', files: { 'a.txt': 'not these' } });
        const session = await openAlice();
        fake.server.inject({
          kind: 'status',
          status: 302,
          headers: { location: `${storage.origin}/object` },
          match: { path: /\/files\/a\.txt\/content$/ },
        });
        const files = await walkAll(session, record.id);
        expect(files['Redirected/a.txt'].toString()).toBe('stored bytes');
        expect(storage.requests).toHaveLength(1);
        expect(storage.requests[0].headers.authorization).toBeUndefined();
      } finally {
        await storage.stop();
      }
    });
  });

  describe('listing', () => {
    it("pages the user's records and drafts newest first by the total the search answers, and searches as documented", async () => {
      for (let n = 1; n <= 7; n++)
        fake.seed(alice, { title: `Record ${n}`, published: n % 2 === 0, keywords: [`k${n}`] });
      fake.seed(bob, { title: 'Record of Bob' });
      const session = await openAlice();
      const first = await session.listResources({ page: 1 });
      const second = await session.listResources({ page: 2 });
      expect(first.resources.map((resource) => resource.title)).toEqual([
        'Record 7',
        'Record 6',
        'Record 5',
        'Record 4',
        'Record 3',
      ]);
      expect(second.resources.map((resource) => resource.title)).toEqual(['Record 2', 'Record 1']);
      expect([first.totalPages, second.totalPages]).toEqual([2, 2]);
      const start = fake.server.requests.length;
      const byKeyword = await session.listResources({ search: { filter: 'keywords', value: 'k4' }, page: 1 });
      expect(byKeyword.resources.map((resource) => resource.title)).toEqual(['Record 4']);
      await session.listResources({ search: { filter: 'title', value: 'Record "3"' }, page: 1 });
      expect(requestsSince(start)).toEqual([
        'GET /api/user/records?page=1&size=5&q=metadata.subjects.subject:"k4"&sort=newest',
        'GET /api/user/records?page=1&size=5&q=metadata.title:"Record+\\"3\\""&sort=newest',
      ]);
      expect(
        (await failureOf(session.listResources({ search: { filter: 'author', value: 'x' }, page: 1 })))
          .status,
      ).toBe(400);
    });

    it("finds anyone's public record by id, and not someone else's draft", async () => {
      const published = fake.seed(bob, { title: 'Public', published: true });
      const draft = fake.seed(bob, { title: 'Draft of Bob' });
      const session = await openAlice();
      const byId = async (id: string) =>
        (await session.listResources({ search: { filter: 'id', value: id }, page: 1 })).resources.map(
          (r) => r.title,
        );
      expect(await byId(published.id)).toEqual(['Public']);
      expect(await byId(draft.id)).toEqual([]);
    });
  });

  describe('detail and walk', () => {
    it('reads the draft first, and shows md5 checksums from the `md5:` form', async () => {
      const record = fake.seed(alice, {
        title: 'Published title',
        published: true,
        files: { 'a.txt': 'alpha' },
      });
      record.draft = {
        metadata: { ...record.published!.metadata, title: 'Edited title' },
        files: record.published!.files,
      };
      const session = await openAlice();
      const detail = await session.getResource(record.id);
      expect(detail).toMatchObject({ title: 'Edited title', kindName: 'dataset', readOnly: undefined });
      const file = await session.getResource(detail.children[0].id);
      expect(file.hashes.md5).toBe(md5('alpha'));
    });

    it("shows another user's published record read-only, and refuses writes into it with 403", async () => {
      const record = fake.seed(bob, { title: 'Theirs', published: true, files: { 'b.txt': 'beta' } });
      const session = await openAlice();
      expect((await session.getResource(record.id)).readOnly).toMatch(/another user's published record/);
      expect(await walkAll(session, record.id)).toEqual({ 'Theirs/b.txt': Buffer.from('beta') });
      expect(
        (await failureOf(session.openWriter(record.id, { newProject: false, message: '' }))).status,
      ).toBe(403);
      expect((await failureOf(session.setKeywords(record.id, ['x']))).status).toBe(403);
    });

    it('leaves out files initialised but never committed', async () => {
      const record = fake.seed(alice, { title: 'Pending', files: { 'done.txt': 'done' } });
      record.draft!.files.push({ ...record.draft!.files[0], key: 'half.txt', status: 'pending' });
      const session = await openAlice();
      expect(Object.keys(await walkAll(session, record.id))).toEqual(['Pending/done.txt']);
      expect((await session.getResource(record.id)).children.map((child) => child.title)).toEqual([
        'done.txt',
      ]);
    });
  });

  describe('writing', () => {
    it('makes a draft with the minimal metadata, uploads in three steps by the links given, and never publishes', async () => {
      const session = await openAlice();
      const made = await session.createProject('New data');
      const stored = fake.state.records.get(made.id)!;
      expect(stored.published).toBeNull();
      expect(stored.draft!.metadata).toEqual({
        title: 'New data',
        resource_type: { id: 'dataset' },
        publication_date: new Date().toISOString().slice(0, 10),
        creators: [{ person_or_org: { type: 'personal', family_name: 'Alice Example' } }],
      });
      const writer = await session.openWriter(made.id, { newProject: true, message: '' });
      const start = fake.server.requests.length;
      const content = randomBytes(200_000);
      const put = await writer.putFile(['data.bin'], countedFile(content), 'ignore');
      await writer.commit();
      expect(put).toMatchObject({
        outcome: 'created',
        path: '/New data/data.bin',
        hashes: { md5: md5(content) },
      });
      expect(requestsSince(start)).toEqual([
        `POST /api/records/${made.id}/draft/files`,
        `PUT /api/records/${made.id}/draft/files/data.bin/content`,
        `POST /api/records/${made.id}/draft/files/data.bin/commit`,
      ]);
      expect(stored.draft!.files[0].content.equals(content)).toBe(true);
      expect(fake.server.requests.some((request) => /publish/.test(request.url))).toBe(false);
    });

    it('writes into a published record through a new version draft holding the earlier files, leaving the record as it was', async () => {
      const record = fake.seed(alice, { title: 'Versioned', published: true, files: { 'old.txt': 'old' } });
      const session = await openAlice();
      const writer = await session.openWriter(record.id, { newProject: false, message: '' });
      const ignored = await writer.putFile(['old.txt'], countedFile('old'), 'update');
      const created = await writer.putFile(['new.txt'], countedFile('new'), 'update');
      expect(ignored.outcome).toBe('ignored');
      const version = [...fake.state.records.values()].find((other) => other.id !== record.id)!;
      expect(created.id.split(':')[0]).toBe(version.id);
      expect(version).toMatchObject({ parent: record.parent, versionIndex: 2, published: null });
      expect(version.draft!.files.map((file) => file.key)).toEqual(['old.txt', 'new.txt']);
      expect(record.published!.files.map((file) => file.key)).toEqual(['old.txt']);
      // taken back: the new version's draft goes, the published record stays
      await writer.abandon!();
      expect(fake.state.records.has(version.id)).toBe(false);
      expect(fake.state.records.get(record.id)?.published?.files).toHaveLength(1);
    });

    it('replaces a changed file by deleting it and uploading it anew', async () => {
      const record = fake.seed(alice, { title: 'Draft', files: { 'a.txt': 'one' } });
      const session = await openAlice();
      const writer = await session.openWriter(record.id, { newProject: false, message: '' });
      const updated = await writer.putFile(['a.txt'], countedFile('two'), 'update');
      expect(updated).toMatchObject({ outcome: 'updated', hashes: { md5: md5('two') } });
      expect(record.draft!.files.map((file) => file.content.toString())).toEqual(['two']);
    });
  });

  describe('keywords', () => {
    it('reads free-text and vocabulary subjects, and keeps a vocabulary subject that stays', async () => {
      const record = fake.seed(alice, { title: 'Tagged' });
      record.draft!.metadata.subjects = [
        { id: 'euroscivoc:123', subject: 'Oceanography' },
        { subject: 'reefs' },
      ];
      const session = await openAlice();
      expect(await session.keywords(record.id)).toEqual(['Oceanography', 'reefs']);
      expect(await session.setKeywords(record.id, ['Oceanography', 'coral'])).toEqual([
        'Oceanography',
        'coral',
      ]);
      expect(record.draft!.metadata.subjects).toEqual([
        { id: 'euroscivoc:123', subject: 'Oceanography' },
        { subject: 'coral' },
      ]);
    });

    it('sets the keywords of a published record in an edit draft, leaving the published version as it was', async () => {
      const record = fake.seed(alice, { title: 'Out', published: true, keywords: ['old'] });
      const session = await openAlice();
      expect(await session.setKeywords(record.id, ['new'])).toEqual(['new']);
      expect(record.published!.metadata.subjects).toEqual([{ subject: 'old' }]);
      expect(record.draft!.metadata.subjects).toEqual([{ subject: 'new' }]);
      expect(await session.keywords(record.id)).toEqual(['new']);
    });
  });

  describe('faults', () => {
    it('waits out a 429 with Retry-After and one without, and carries on', async () => {
      fake.seed(alice, { title: 'Limited' });
      const session = await openAlice();
      fake.server.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        match: { path: /user\/records/ },
      });
      fake.server.inject({ kind: 'status', status: 429, match: { path: /user\/records/ } });
      const started = Date.now();
      const page = await session.listResources({ page: 1 });
      expect(page.resources.map((resource) => resource.title)).toEqual(['Limited']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    });

    it('gives up on a lasting 5xx with an error that names InvenioRDM and not the token', async () => {
      const session = await openAlice();
      fake.server.inject({ kind: 'status', status: 503, times: TEST_UPSTREAM.retries + 1 });
      const failed = await failureOf(session.listResources({ page: 1 }));
      expect(failed.status).toBe(502);
      expect(failed.message).toMatch(/^InvenioRDM answered 503/);
      expect(failed.message).not.toContain('alice-token');
    });

    it('resumes a file whose body was cut off midway, byte for byte', async () => {
      const content = randomBytes(3 << 20);
      const record = fake.seed(alice, { title: 'Big', files: { 'big.bin': content } });
      const session = await openAlice();
      fake.server.inject({ kind: 'cut', afterBytes: 1 << 20 });
      const files = await walkAll(session, record.id);
      expect(md5(files['Big/big.bin'])).toBe(md5(content));
      const ranged = fake.server.requests.filter((request) => request.headers.range !== undefined);
      expect(ranged).toHaveLength(1);
    });

    it('retries a file upload that met a 503, sending the bytes again', async () => {
      const made = await (await openAlice()).createProject('Retry');
      const session = await openAlice();
      const writer = await session.openWriter(made.id, { newProject: true, message: '' });
      fake.server.inject({ kind: 'status', status: 503, match: { method: 'PUT', path: /\/content$/ } });
      const file = countedFile('payload');
      await writer.putFile(['p.txt'], file, 'ignore');
      expect(file.opened).toBe(2);
      expect(fake.state.records.get(made.id)!.draft!.files[0].content.toString()).toBe('payload');
    });
  });
});
