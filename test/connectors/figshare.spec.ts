import { createHash } from 'node:crypto';
import type { Connector, ConnectorSession, RemoteFile } from '@app/connectors/connector';
import { figshareConnector, type FigshareOptions } from '@app/connectors/figshare';
import { FigshareFake } from '../fakes/figshare/figshare-fake';
import { connectorContext } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';

const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');

/** Bytes that differ from one offset to the next, so a part sent at the wrong place shows. */
function patterned(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return bytes;
}

describe('figshare connector', () => {
  let fake: FigshareFake;
  let owner: number;

  beforeAll(async () => {
    fake = await new FigshareFake().start();
  });

  beforeEach(() => {
    fake.reset();
    for (const server of [fake.server, fake.uploads, fake.downloads]) server.clearFaults();
    owner = fake.addUser('alice-token', { email: 'alice@example.org' });
  });

  afterAll(async () => {
    await fake.stop();
  });

  function connect(options: Partial<FigshareOptions> = {}): Connector {
    const defaults = { api_url: fake.server.url, files_url: fake.downloads.url, per_page: 5 };
    return figshareConnector.create({ ...defaults, ...options }, connectorContext());
  }

  const openAlice = (options: Partial<FigshareOptions> = {}): Promise<ConnectorSession> =>
    connect(options).open('alice-token');

  /** A project with its own article (files `own`) and an article `Figures` (files `figures`). */
  function seedLayout() {
    return fake.seedProject(owner, {
      title: 'Ocean Survey',
      articles: [
        { title: 'Ocean Survey', files: { 'readme.txt': 'read me' }, tags: ['ocean'] },
        {
          title: 'Figures',
          files: { 'b.png': 'bbb', 'a.png': 'aa' },
          tags: ['plots'],
          definedType: 'figure',
        },
      ],
    });
  }

  describe('options', () => {
    it('accepts none, and names each option that is wrong', () => {
      expect(figshareConnector.validateOptions({})).toEqual([]);
      expect(
        figshareConnector.validateOptions({
          api_url: 'ftp://x',
          files_url: 'https://u:p@x',
          per_page: 0,
          x: 1,
        }),
      ).toEqual([
        expect.stringMatching(/^options\.x is not a known option/),
        'options.api_url must be an http or https URL',
        'options.files_url must not carry credentials: the token comes with each request',
        'options.per_page must be an integer from 1 to 1000',
      ]);
    });
  });

  describe('tokens', () => {
    it('sends the token as FigShare asks, names the user by e-mail, and answers 401 for a refused token', async () => {
      const session = await openAlice();
      expect(session.username).toBe('alice@example.org');
      expect(fake.server.requests[0].headers.authorization).toBe('token alice-token');
      expect((await failureOf(connect().open('mallory-token'))).status).toBe(401);
    });

    it('sends the token to the file host it is configured with, and never to the upload service', async () => {
      const session = await openAlice();
      const project = await session.createProject('Guarded');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      await writer.putFile(['a.txt'], countedFile('a'), 'ignore');
      for (const entry of [...(await collect(session, project.id))])
        if (entry.kind === 'file') await readAll(await entry.open());
      expect(fake.uploads.requests.length).toBeGreaterThan(0);
      expect(fake.uploads.requests.map((request) => request.headers.authorization)).toEqual(
        fake.uploads.requests.map(() => undefined),
      );
      expect(fake.downloads.requests.map((request) => request.headers.authorization)).toEqual([
        'token alice-token',
      ]);
    });

    it('does not send the token to a file host it is not configured with', async () => {
      const session = await openAlice({ files_url: 'https://files.example.org/' });
      const project = seedLayout();
      const entries = await collect(session, String(project.id));
      const readme = entries.find((entry): entry is RemoteFile => entry.path === 'Ocean Survey/readme.txt')!;
      expect((await failureOf(readme.open())).status).toBe(403);
      expect(fake.downloads.requests.map((request) => request.headers.authorization)).toEqual([undefined]);
    });
  });

  async function collect(session: ConnectorSession, id: string) {
    const entries = [];
    for await (const entry of session.walk(id)) entries.push(entry);
    return entries;
  }

  describe('projects, articles and files', () => {
    it("shows a project's own article's files in it and its other articles as containers", async () => {
      const project = seedLayout();
      const session = await openAlice();
      const detail = await session.getResource(String(project.id));
      const [own, figures] = project.articles;
      expect(detail.children).toEqual([
        {
          kind: 'item',
          kindName: 'file',
          id: `${project.id}:${own.id}:${own.files[0].id}`,
          container: String(project.id),
          title: 'readme.txt',
        },
        {
          kind: 'container',
          kindName: 'figure',
          id: `${project.id}:${figures.id}`,
          container: String(project.id),
          title: 'Figures',
        },
      ]);
      const article = await session.getResource(`${project.id}:${figures.id}`);
      expect(article.children.map((child) => child.title)).toEqual(['a.png', 'b.png']);
      const file = await session.getResource(article.children[0].id);
      expect(file).toMatchObject({ kind: 'item', title: 'a.png', hashes: { md5: md5('aa'), sha256: null } });
      expect(await session.keywords(String(project.id))).toEqual(['ocean']);
      expect(await session.keywords(`${project.id}:${figures.id}`)).toEqual(['plots']);
      expect((await failureOf(session.keywords(article.children[0].id))).status).toBe(400);
    });

    it('walks a project as a folder holding its own files and a folder per other article', async () => {
      const project = seedLayout();
      const entries = await collect(await openAlice(), String(project.id));
      expect(entries.map((entry) => `${entry.kind} ${entry.path}`)).toEqual([
        'folder Ocean Survey',
        'file Ocean Survey/readme.txt',
        'folder Ocean Survey/Figures',
        'file Ocean Survey/Figures/a.png',
        'file Ocean Survey/Figures/b.png',
      ]);
    });

    it('answers 404 for an article of another project and for ids of other shapes', async () => {
      const project = seedLayout();
      const other = fake.seedProject(owner, { title: 'Other', articles: [{ title: 'Other' }] });
      const session = await openAlice();
      for (const id of [`${other.id}:${project.articles[1].id}`, `${project.id}:1:2:3`, '-1', '1.5'])
        expect({ id, status: (await failureOf(session.getResource(id))).status }).toEqual({
          id,
          status: 404,
        });
    });

    it('refuses searches by author or keywords with 400', async () => {
      const session = await openAlice();
      const search = { filter: 'author' as const, value: 'x' };
      expect((await failureOf(session.listResources({ page: 1, search }))).status).toBe(400);
    });
  });

  describe('published projects of other users', () => {
    let bob: number;
    beforeEach(() => {
      bob = fake.addUser('bob-token', { email: 'bob@example.org' });
    });

    /** Bob's published project, laid out as seedLayout's, read by Alice. */
    function seedBobsProject() {
      return fake.seedProject(bob, {
        title: 'Open Survey',
        published: true,
        articles: [
          { title: 'Open Survey', files: { 'readme.txt': 'read me' }, tags: ['open'] },
          {
            title: 'Figures',
            files: { 'b.png': 'bbb', 'a.png': 'aa' },
            tags: ['plots'],
            definedType: 'figure',
          },
        ],
      });
    }

    it('shows, finds by id, walks and downloads it through the public endpoints', async () => {
      const project = seedBobsProject();
      const [own, figures] = project.articles;
      const session = await openAlice();
      const detail = await session.getResource(String(project.id));
      expect(detail).toMatchObject({ kind: 'container', kindName: 'project', title: 'Open Survey' });
      expect(detail.children.map((child) => child.id)).toEqual([
        `${project.id}:${own.id}:${own.files[0].id}`,
        `${project.id}:${figures.id}`,
      ]);
      const article = await session.getResource(`${project.id}:${figures.id}`);
      expect(article).toMatchObject({ kindName: 'figure', title: 'Figures' });
      expect(article.children.map((child) => child.title)).toEqual(['a.png', 'b.png']);
      const file = await session.getResource(article.children[0].id);
      expect(file).toMatchObject({ title: 'a.png', hashes: { md5: md5('aa'), sha256: null } });
      const found = await session.listResources({
        page: 1,
        search: { filter: 'id', value: String(project.id) },
      });
      expect(found.resources.map((resource) => resource.id)).toEqual([String(project.id)]);
      expect(await session.keywords(String(project.id))).toEqual(['open']);
      expect(await session.keywords(`${project.id}:${figures.id}`)).toEqual(['plots']);

      const entries = await collect(session, String(project.id));
      expect(entries.map((entry) => `${entry.kind} ${entry.path}`)).toEqual([
        'folder Open Survey',
        'file Open Survey/readme.txt',
        'folder Open Survey/Figures',
        'file Open Survey/Figures/a.png',
        'file Open Survey/Figures/b.png',
      ]);
      const png = entries.find((entry): entry is RemoteFile => entry.path === 'Open Survey/Figures/b.png')!;
      expect((await readAll(await png.open())).toString()).toBe('bbb');
      expect(await png.sourceHashes(['md5'])).toEqual({ md5: md5('bbb') });
      const paths = new Set(fake.server.requests.map((request) => request.url.split('?')[0]));
      for (const path of [`/v2/projects/${project.id}`, `/v2/projects/${project.id}/articles`])
        expect(paths).toContain(path);
    });

    it('answers 404 for an article that is not in it, as for the user’s own projects', async () => {
      const project = seedBobsProject();
      const elsewhere = fake.seedProject(bob, {
        title: 'Elsewhere',
        published: true,
        articles: [{ title: 'Away' }],
      });
      const session = await openAlice();
      for (const id of [
        `${project.id}:${elsewhere.articles[0].id}`,
        `${project.id}:${elsewhere.articles[0].id}:1`,
      ])
        expect((await failureOf(session.getResource(id))).status).toBe(404);
    });

    it('refuses writes into it with 403, and still answers 403 for an unpublished project of someone else', async () => {
      const project = seedBobsProject();
      const message = `FigShare project ${project.id} is another user's published project: it can be read and downloaded here, not changed.`;
      const session = await openAlice();
      for (const id of [String(project.id), `${project.id}:${project.articles[1].id}`]) {
        expect(await failureOf(session.openWriter(id, { newProject: false, message: 'test' }))).toEqual({
          status: 403,
          message,
        });
        expect(await failureOf(session.setKeywords(id, ['mine']))).toEqual({ status: 403, message });
      }
      expect(fake.server.requests.filter((request) => request.method !== 'GET')).toEqual([]);
      const draft = fake.seedProject(bob, { title: 'Draft', articles: [{ title: 'Draft' }] });
      expect((await failureOf(session.getResource(String(draft.id)))).status).toBe(403);
    });
  });

  describe('uploads', () => {
    it('sends a file in the parts the upload service dictates, streamed, and completes it', async () => {
      fake.partSize = 1000;
      const session = await openAlice();
      const project = await session.createProject('Parts');
      const bytes = patterned(2500);
      const file = countedFile(bytes, 700);
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const result = await writer.putFile(['data.bin'], file, 'ignore');
      expect(result).toMatchObject({
        outcome: 'created',
        hashes: { md5: md5(bytes) },
        path: '/Parts/data.bin',
      });
      const parts = fake.uploads.requests.filter((request) => request.method === 'PUT');
      expect(parts.map((request) => request.url.split('/').pop())).toEqual(['1', '2', '3']);
      // once for the md5 FigShare is told, once for the parts
      expect(file.opened).toBe(2);
      const stored = fake.project(Number(project.id))!.articles[0];
      expect(stored.title).toBe('Parts');
      expect(stored.files.map((f) => [f.name, f.status, f.content.equals(bytes)])).toEqual([
        ['data.bin', 'available', true],
      ]);
    });

    it('tells FigShare the md5 the source vouches for, reading the file once, for the parts alone', async () => {
      fake.partSize = 1000;
      const session = await openAlice();
      const project = await session.createProject('Vouched');
      const bytes = patterned(2500);
      const file = countedFile(bytes, 700, { md5: md5(bytes) });
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const result = await writer.putFile(['data.bin'], file, 'ignore');
      expect(result).toMatchObject({ outcome: 'created', hashes: { md5: md5(bytes) } });
      expect(file.opened).toBe(1);
      expect(fake.project(Number(project.id))!.articles[0].files[0].suppliedMd5).toBe(md5(bytes));
      // an unchanged file is found by the vouched md5 without reading it
      const again = countedFile(bytes, 700, { md5: md5(bytes) });
      expect((await writer.putFile(['data.bin'], again, 'update')).outcome).toBe('ignored');
      expect(again.opened).toBe(0);
    });

    it('sends a part again after a 503 or a dropped connection, from the right offset', async () => {
      fake.partSize = 1000;
      const session = await openAlice();
      const project = await session.createProject('Retried');
      fake.uploads.inject({ kind: 'status', status: 503, times: 1, match: { method: 'PUT', path: /\/2$/ } });
      fake.uploads.inject({ kind: 'reset', times: 1, match: { method: 'PUT', path: /\/3$/ } });
      const bytes = patterned(2999);
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      await writer.putFile(['data.bin'], countedFile(bytes, 700), 'ignore');
      expect(fake.project(Number(project.id))!.articles[0].files[0].content.equals(bytes)).toBe(true);
    });

    it('leaves no partial file behind when the upload service keeps failing', async () => {
      fake.partSize = 1000;
      const session = await openAlice();
      const project = await session.createProject('Broken');
      fake.uploads.inject({ kind: 'status', status: 500, times: 100, match: { method: 'PUT' } });
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const failure = await failureOf(writer.putFile(['data.bin'], countedFile(patterned(2500)), 'ignore'));
      expect(failure.status).toBe(502);
      expect(fake.project(Number(project.id))!.articles[0].files).toEqual([]);
    });

    it('replaces a changed file only once its new content is complete, and leaves an unchanged one alone', async () => {
      const project = seedLayout();
      const session = await openAlice();
      const own = project.articles[0];
      const oldId = own.files[0].id;
      const writer = await session.openWriter(String(project.id), { newProject: false, message: 'x' });
      const same = countedFile('read me');
      expect((await writer.putFile(['readme.txt'], same, 'update')).outcome).toBe('ignored');
      expect(fake.uploads.requests).toEqual([]);
      const updated = await writer.putFile(['readme.txt'], countedFile('read me again'), 'update');
      expect(updated).toMatchObject({ outcome: 'updated', hashes: { md5: md5('read me again') } });
      const files = fake.project(project.id)!.articles[0].files;
      expect(files.map((file) => [file.name, file.content.toString()])).toEqual([
        ['readme.txt', 'read me again'],
      ]);
      expect(files[0].id).not.toBe(oldId);
    });

    it('writes into an article of a project, and refuses a file as a container and paths into folders', async () => {
      const project = seedLayout();
      const figures = project.articles[1];
      const session = await openAlice();
      const writer = await session.openWriter(`${project.id}:${figures.id}`, {
        newProject: false,
        message: 'x',
      });
      expect(await writer.putFile(['c.png'], countedFile('c'), 'ignore')).toMatchObject({
        outcome: 'created',
        path: '/Ocean Survey/Figures/c.png',
      });
      expect((await failureOf(writer.putFile(['sub', 'd.png'], countedFile('d'), 'ignore'))).status).toBe(
        400,
      );
      const fileId = `${project.id}:${figures.id}:${figures.files[0].id}`;
      expect((await failureOf(session.openWriter(fileId, { newProject: false, message: 'x' }))).status).toBe(
        400,
      );
    });

    it("keeps a resource with folders as one zip of a bag in the project's own article, and walks it back as a tree", async () => {
      const session = await openAlice();
      const project = await session.createProject('Nested');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x', nested: true });
      const tree = { 'top.txt': 'top', 'data/raw/values.csv': 'x,y\n' };
      for (const [path, content] of Object.entries(tree))
        await writer.putFile(path.split('/'), countedFile(content), 'ignore');
      await writer.commit();
      const stored = fake.project(Number(project.id))!.articles;
      expect(stored.map((article) => article.title)).toEqual(['Nested']);
      expect(stored[0].files.map((file) => file.name)).toEqual(['Nested.presqt.zip']);
      const walked: Record<string, string> = {};
      // read as the walk goes, as jobs do
      for await (const entry of session.walk(project.id))
        if (entry.kind === 'file') walked[entry.path] = (await readAll(await entry.open())).toString();
      expect(walked).toEqual({ 'Nested/top.txt': 'top', 'Nested/data/raw/values.csv': 'x,y\n' });
    });

    it('gives a project without an article of its own one for its keywords', async () => {
      const project = fake.seedProject(owner, { title: 'Bare' });
      const session = await openAlice();
      expect(await session.keywords(String(project.id))).toEqual([]);
      expect(await session.setKeywords(String(project.id), ['a', 'b'])).toEqual(['a', 'b']);
      expect(fake.project(project.id)!.articles.map((article) => [article.title, article.tags])).toEqual([
        ['Bare', ['a', 'b']],
      ]);
    });
  });
});
