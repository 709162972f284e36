import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type Connector,
  type ConnectorSession,
  type IncomingFile,
  type RemoteFile,
  type RemoteFolder,
} from '@app/connectors';
import { fileServiceOrigins, osfConnector, type OsfOptions } from '@app/connectors/osf';
import { connectorContext } from '../support/connector-context';
import { OsfFake, OTHER_REGION } from '../fakes/osf/osf-fake';
import type { FakeNode, FakeUser } from '../fakes/osf/model';
import { osfDescription } from '../fakes/osf/openapi';
import type { RecordedRequest } from '../fakes/fake-server';
import { failureOf, readAll } from '../support/connector-failures';

const md5 = (bytes: string | Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

async function walked(session: ConnectorSession, id: string): Promise<(RemoteFile | RemoteFolder)[]> {
  const entries: (RemoteFile | RemoteFolder)[] = [];
  for await (const entry of session.walk(id)) entries.push(entry);
  return entries;
}

/** An incoming file that counts how often it is read. */
function incoming(content: string): IncomingFile & { opened: number } {
  const bytes = Buffer.from(content);
  const file = {
    size: bytes.length,
    opened: 0,
    open: async () => {
      file.opened++;
      return Readable.from([bytes]);
    },
  };
  return file;
}

/** Path and query of a recorded request, parsed. */
const parsed = (request: RecordedRequest) => new URL(request.url, 'http://fake');

describe('osf connector', () => {
  let fake: OsfFake;
  let alice: FakeUser;
  let bob: FakeUser;
  let connector: Connector;
  let session: ConnectorSession;

  const connect = (options: OsfOptions = {}, perPage = 10) =>
    osfConnector.create(
      { api_url: fake.api.url, files_url: fake.files.origin, ...options },
      connectorContext({ perPage }),
    );

  beforeAll(async () => {
    fake = await new OsfFake().start();
    alice = fake.addUser('Alice Example', 'alice-token');
    bob = fake.addUser('Bob Other', 'bob-token');
  });

  beforeEach(async () => {
    fake.reset();
    connector = connect({ per_page: 3 });
    session = await connector.open('alice-token');
  });

  afterAll(() => fake.stop());

  /** A project with osfstorage files, a Dropbox storage and a component. */
  function seedLayout(): { project: FakeNode; component: FakeNode } {
    const project = fake.addProject(alice, 'Layout', { 'readme.txt': 'read me', 'data/a.csv': 'a,b\n' });
    fake.addFiles(project, 'dropbox', { 'notes/n.txt': 'a note' });
    const component = fake.addProject(alice, 'Phase 1/2', { 'c.txt': 'c' }, { parent: project });
    return { project, component };
  }

  describe('ids', () => {
    it('names projects by GUID, storages <node>:<provider>, folders and files by OSF id, each leading back to its resource', async () => {
      const { project, component } = seedLayout();
      const detail = await session.getResource(project.id);
      expect(detail.children).toEqual([
        expect.objectContaining({ kindName: 'folder', title: 'data', container: project.id }),
        expect.objectContaining({ kindName: 'file', title: 'readme.txt', container: project.id }),
        {
          kind: 'container',
          kindName: 'storage',
          id: `${project.id}:dropbox`,
          title: 'dropbox',
          container: project.id,
        },
        {
          kind: 'container',
          kindName: 'project',
          id: component.id,
          title: 'Phase 1/2',
          container: project.id,
        },
      ]);
      for (const child of detail.children) {
        expect(child.id).toMatch(/^[A-Za-z0-9]+(:[a-z]+)?$/);
        expect(await session.getResource(child.id)).toMatchObject({
          id: child.id,
          kind: child.kind,
          kindName: child.kindName,
          title: child.title,
        });
      }
    });

    it('finds any resource by id, with the container a walk puts it in', async () => {
      const { project, component } = seedLayout();
      const data = fake.entryAt(project, 'data/')!;
      const notes = fake.entryAt(project, 'notes/', 'dropbox')!;
      const cases: [string, string | null][] = [
        [project.id, null],
        [component.id, project.id],
        [`${project.id}:dropbox`, project.id],
        [fake.entryAt(project, 'readme.txt')!.id, project.id],
        [fake.entryAt(project, 'data/a.csv')!.id, data.id],
        [notes.id, `${project.id}:dropbox`],
        [fake.entryAt(project, 'notes/n.txt', 'dropbox')!.id, notes.id],
      ];
      for (const [id, container] of cases) {
        const found = await session.listResources({ search: { filter: 'id', value: id }, page: 1 });
        expect(found.resources.map((resource) => [resource.id, resource.container])).toEqual([
          [id, container],
        ]);
      }
    });

    it('answers 404 for what cannot be an OSF id without asking OSF, and for unknown ids after asking for a node and a file', async () => {
      fake.api.requests.length = 0;
      for (const id of ['a.b', 'x:y:z', ':osfstorage', 'abcde:', '../x', 'a b', 'x'.repeat(65)])
        expect({ id, status: (await failureOf(session.getResource(id))).status }).toEqual({
          id,
          status: 404,
        });
      expect(fake.api.requests).toEqual([]);

      expect((await failureOf(session.getResource('zzzzz'))).status).toBe(404);
      expect((await failureOf(session.getResource(`zzzzz:osfstorage`))).status).toBe(404);
      const project = fake.addProject(alice, 'Known');
      expect((await failureOf(session.getResource(`${project.id}:github`))).status).toBe(404);
      expect(fake.api.requests.map((request) => parsed(request).pathname).slice(0, 3)).toEqual([
        '/v2/nodes/zzzzz/',
        '/v2/files/zzzzz/',
        '/v2/nodes/zzzzz/',
      ]);
    });
  });

  describe('layout', () => {
    it('walks osfstorage as the project itself, other storages and components as folders after it', async () => {
      const { project } = seedLayout();
      const entries = await walked(session, project.id);
      expect(entries.map((entry) => `${entry.kind === 'folder' ? 'D' : 'F'} ${entry.path}`)).toEqual([
        'D Layout',
        'F Layout/readme.txt',
        'D Layout/data',
        'F Layout/data/a.csv',
        'D Layout/dropbox',
        'D Layout/dropbox/notes',
        'F Layout/dropbox/notes/n.txt',
        'D Layout/Phase 1_2',
        'F Layout/Phase 1_2/c.txt',
      ]);
      const file = (path: string) => entries.find((entry): entry is RemoteFile => entry.path === path)!;
      expect(await file('Layout/readme.txt').sourceHashes(connector.hashAlgorithms)).toEqual({
        sha256: sha256('read me'),
        md5: md5('read me'),
      });
      // other providers' files have no checksums at OSF
      expect(await file('Layout/dropbox/notes/n.txt').sourceHashes(connector.hashAlgorithms)).toEqual({});
      expect((await readAll(await file('Layout/dropbox/notes/n.txt').open())).toString()).toBe('a note');
      const dropboxFile = await session.getResource(fake.entryAt(project, 'notes/n.txt', 'dropbox')!.id);
      expect(dropboxFile.hashes).toEqual({ md5: null, sha256: null });
    });

    it('writes into a project go to its osfstorage, into a storage or a folder go there', async () => {
      const { project } = seedLayout();
      const put = async (container: string, name: string) => {
        const writer = await session.openWriter(container, { newProject: false, message: 'test' });
        return writer.putFile([name], incoming(`${name} content`), 'ignore');
      };
      const results = [
        await put(project.id, 'x.txt'),
        await put(`${project.id}:dropbox`, 'y.txt'),
        await put(fake.entryAt(project, 'data/')!.id, 'z.txt'),
      ];
      expect(results.map((result) => result.path)).toEqual([
        '/Layout/x.txt',
        '/Layout/dropbox/y.txt',
        '/Layout/data/z.txt',
      ]);
      expect(fake.contentOf(project, 'x.txt')?.toString()).toBe('x.txt content');
      expect(fake.contentOf(project, 'y.txt', 'dropbox')?.toString()).toBe('y.txt content');
      expect(fake.contentOf(project, 'data/z.txt')?.toString()).toBe('z.txt content');
      for (const result of results) {
        expect(await session.getResource(result.id)).toMatchObject({
          kind: 'item',
          title: result.path.split('/').pop(),
        });
      }
    });
  });

  describe('options', () => {
    it('names each option that is wrong, and never repeats a value', () => {
      expect(osfConnector.validateOptions({})).toEqual([]);
      expect(
        osfConnector.validateOptions({
          api_url: 'https://api.test.osf.io/v2/',
          files_url: 'https://files.us.test.osf.io/',
          files_urls: ['https://files.de-1.test.osf.io/'],
          public: true,
          per_page: 100,
        }),
      ).toEqual([]);
      const problems = osfConnector.validateOptions({
        api_url: 'ftp://example.org/',
        files_url: 'not a url',
        files_urls: [
          'https://files.de-1.osf.io/',
          'files.ca-1.osf.io',
          'https://user:secret@files.au-1.osf.io/',
        ],
        public: 'yes',
        per_page: 101,
        token: 'secret-token-value',
      });
      expect(problems).toEqual([
        'options.token is not a known option (api_url, files_url, files_urls, public, per_page)',
        'options.api_url must be an http or https URL',
        'options.files_url must be an http or https URL',
        'options.files_urls entry 2 must be an http or https URL; entry 3 must not carry credentials: the token comes with each request',
        'options.public must be true or false',
        'options.per_page must be an integer from 1 to 100',
      ]);
      expect(osfConnector.validateOptions([])).toEqual(['options must be an object']);
      for (const files_urls of [[], 'https://files.de-1.osf.io/'])
        expect(osfConnector.validateOptions({ files_urls })).toEqual([
          'options.files_urls must be a non-empty list of http or https URLs',
        ]);
    });

    it("trusts the file services of OSF's production regions by default, and only files_url for another OSF", () => {
      expect(fileServiceOrigins({})).toEqual([
        'https://files.osf.io/',
        'https://files.us.osf.io/',
        'https://files.de-1.osf.io/',
        'https://files.ca-1.osf.io/',
        'https://files.au-1.osf.io/',
      ]);
      const testServer = {
        api_url: 'https://api.test.osf.io/v2/',
        files_url: 'https://files.us.test.osf.io/',
      };
      expect(fileServiceOrigins(testServer)).toEqual(['https://files.us.test.osf.io/']);
      expect(fileServiceOrigins({ ...testServer, files_urls: ['https://files.de-1.test.osf.io/'] })).toEqual([
        'https://files.us.test.osf.io/',
        'https://files.de-1.test.osf.io/',
      ]);
    });

    it('makes new projects private, or public with options.public', async () => {
      await session.createProject('Quiet');
      const open = await connect({ public: true }).open('alice-token');
      await open.createProject('Loud');
      expect(fake.nodeTitled('Quiet')?.public).toBe(false);
      expect(fake.nodeTitled('Loud')?.public).toBe(true);
    });

    it("lists with the service's page size unless options.per_page sets one", async () => {
      fake.addProject(alice, 'Only');
      await (await connect({}, 7).open('alice-token')).listResources({ page: 1 });
      const listing = fake.api.requests.find((request) => parsed(request).pathname.endsWith('/nodes/'))!;
      expect(parsed(listing).searchParams.get('page[size]')).toBe('7');
    });
  });

  describe('paging', () => {
    it("asks OSF for page n of the user's top-level nodes with its page size, newest first", async () => {
      const projects = Array.from({ length: 7 }, (_, i) => fake.addProject(alice, `Project ${i + 1}`));
      fake.addProject(alice, 'A component', {}, { parent: projects[0] });
      fake.addProject(bob, 'Not Alice’s');
      fake.api.requests.length = 0;
      const second = await session.listResources({ page: 2 });
      expect(second.resources.map((resource) => resource.title)).toEqual([
        'Project 4',
        'Project 3',
        'Project 2',
      ]);
      expect(second).toMatchObject({ totalPages: 3, perPage: 3 });
      const [listing] = fake.api.requests;
      expect(parsed(listing).pathname).toBe(`/v2/users/${alice.id}/nodes/`);
      expect(Object.fromEntries(parsed(listing).searchParams)).toEqual({
        'filter[parent]': 'null',
        sort: '-date_modified',
        page: '2',
        'page[size]': '3',
      });
      // OSF answers 404 past the last page: nothing there, and the count still right
      expect(await session.listResources({ page: 4 })).toEqual({ resources: [], totalPages: 3, perPage: 3 });
    });

    it('follows the next links OSF gives, whatever page size it keeps to', async () => {
      fake.settings.maxPageSize = 2;
      const files: Record<string, string> = {};
      for (let i = 1; i <= 5; i++) files[`f${i}.txt`] = `file ${i}`;
      for (let i = 1; i <= 3; i++) files[`sub/g${i}.txt`] = `sub file ${i}`;
      const project = fake.addProject(alice, 'Many', files);
      const paths = (await walked(session, project.id)).map((entry) => entry.path);
      expect(paths).toEqual([
        'Many',
        ...[1, 2, 3, 4, 5].map((i) => `Many/f${i}.txt`),
        'Many/sub',
        ...[1, 2, 3].map((i) => `Many/sub/g${i}.txt`),
      ]);
      expect((await session.getResource(project.id)).children).toHaveLength(6);
      const pages = fake.api.requests.map((request) => parsed(request).searchParams.get('page'));
      expect(pages).toContain('3');
      // the page size OSF keeps to is the one reported
      expect((await session.listResources({ page: 1 })).perPage).toBe(2);
    });

    it('pins the API version on every request to the API', async () => {
      seedLayout();
      await session.listResources({ page: 1 });
      await walked(session, fake.nodeTitled('Layout')!.id);
      expect(fake.api.requests.length).toBeGreaterThan(5);
      for (const request of fake.api.requests)
        expect(request.headers.accept).toBe('application/vnd.api+json; version=2.20');
    });
  });

  describe('search', () => {
    let coral: FakeNode;
    let shared: FakeNode;

    beforeEach(() => {
      coral = fake.addProject(alice, 'Coral Reef Survey', {}, { tags: ['Reefs', 'ocean'] });
      fake.addProject(alice, 'Desert Soil', {}, { tags: ['reefs-adjacent'] });
      shared = fake.addProject(bob, 'Shared Study');
      shared.contributors.push(alice);
      fake.api.requests.length = 0;
    });

    async function search(filter: 'title' | 'keywords' | 'author', value: string) {
      const found = await session.listResources({ search: { filter, value }, page: 1 });
      return found.resources.map((resource) => resource.title);
    }

    const listingQueries = () =>
      fake.api.requests
        .filter((request) => parsed(request).pathname.endsWith('/nodes/'))
        .map((request) => Object.fromEntries(parsed(request).searchParams));

    it("filters the user's top-level nodes by title and by tag at OSF", async () => {
      expect(await search('title', 'coral')).toEqual(['Coral Reef Survey']);
      expect(await search('keywords', 'reefs')).toEqual(['Coral Reef Survey']);
      expect(listingQueries()).toEqual([
        expect.objectContaining({
          'filter[parent]': 'null',
          'filter[title]': 'coral',
          sort: '-date_modified',
        }),
        expect.objectContaining({
          'filter[parent]': 'null',
          'filter[tags]': 'reefs',
          sort: '-date_modified',
        }),
      ]);
    });

    it('finds an author among OSF users by name, and filters by that contributor', async () => {
      expect(await search('author', 'Bob')).toEqual(['Shared Study']);
      const lookup = fake.api.requests.find((request) => parsed(request).pathname === '/v2/users/')!;
      expect(parsed(lookup).searchParams.get('filter[full_name]')).toBe('Bob');
      expect(listingQueries()).toEqual([expect.objectContaining({ 'filter[contributors]': bob.id })]);

      // the user's own name needs no lookup
      fake.api.requests.length = 0;
      expect(await search('author', 'alice')).toEqual(['Shared Study', 'Desert Soil', 'Coral Reef Survey']);
      expect(fake.api.requests.map((request) => parsed(request).pathname)).toEqual([
        `/v2/users/${alice.id}/nodes/`,
      ]);
      expect(listingQueries()).toEqual([expect.objectContaining({ 'filter[contributors]': alice.id })]);

      fake.api.requests.length = 0;
      expect(await search('author', 'Nobody')).toEqual([]);
      expect(listingQueries()).toEqual([]);
    });

    it('finds by id without listing, and refuses a general search', async () => {
      const found = await session.listResources({ search: { filter: 'id', value: coral.id }, page: 1 });
      expect(found.resources.map((resource) => resource.title)).toEqual(['Coral Reef Survey']);
      const second = await session.listResources({ search: { filter: 'id', value: coral.id }, page: 2 });
      expect(second.resources).toEqual([]);
      expect(listingQueries()).toEqual([]);
      const other = fake.addProject(bob, 'Private to Bob');
      expect(
        (await session.listResources({ search: { filter: 'id', value: other.id }, page: 1 })).resources,
      ).toEqual([]);
      expect(
        (await failureOf(session.listResources({ search: { filter: 'general', value: 'x' }, page: 1 })))
          .status,
      ).toBe(400);
    });
  });

  describe('credentials', () => {
    it('sends the token to the API and WaterButler only: never to the storage downloads redirect to, nor the website', async () => {
      const content = Buffer.alloc(200_000, 7);
      const project = fake.addProject(alice, 'Guarded', { 'big.bin': content });
      const [file] = (await walked(session, project.id)).filter(
        (entry): entry is RemoteFile => entry.kind === 'file',
      );
      expect((await readAll(await file.open())).equals(content)).toBe(true);
      expect(fake.storage.requests.length).toBe(1);
      expect(fake.storage.requests[0].headers.authorization).toBeUndefined();
      expect(fake.files.requests.length).toBe(1);
      for (const request of [...fake.api.requests, ...fake.files.requests])
        expect(request.headers.authorization).toBe('Bearer alice-token');
      expect(fake.web.requests).toEqual([]);
    });
  });

  describe('storage regions', () => {
    /** A session of a target that lists the file service of OTHER_REGION among those trusted with the token. */
    const regional = () =>
      connect({ per_page: 3, files_urls: [fake.regionalFiles.origin] }).open('alice-token');
    const filesOf = (entries: (RemoteFile | RemoteFolder)[]) =>
      entries.filter((entry): entry is RemoteFile => entry.kind === 'file');

    it('downloads and uploads into a project stored in another region, through that region’s file service', async () => {
      const project = fake.addProject(
        alice,
        'Frankfurt',
        { 'a.txt': 'alpha', 'data/b.csv': 'b,c\n' },
        {
          region: OTHER_REGION,
        },
      );
      const regionSession = await regional();
      const files = filesOf(await walked(regionSession, project.id));
      expect(files.map((file) => file.path)).toEqual(['Frankfurt/a.txt', 'Frankfurt/data/b.csv']);
      expect((await readAll(await files[1].open())).toString()).toBe('b,c\n');

      const writer = await regionSession.openWriter(project.id, { newProject: false, message: 'test' });
      const result = await writer.putFile(['new', 'c.txt'], incoming('gamma'), 'ignore');
      await writer.commit();
      expect(result).toMatchObject({ outcome: 'created', hashes: { sha256: sha256('gamma') } });
      expect(fake.contentOf(project, 'new/c.txt')?.toString()).toBe('gamma');

      expect(fake.files.requests).toEqual([]);
      expect(fake.regionalFiles.requests.map((request) => request.method)).toEqual(['GET', 'PUT', 'PUT']);
      for (const request of fake.regionalFiles.requests)
        expect(request.headers.authorization).toBe('Bearer alice-token');
    });

    it('transfers between projects of that region, a new project made in the user’s default region', async () => {
      alice.defaultRegion = OTHER_REGION;
      const source = fake.addProject(alice, 'Origin', { 'a.txt': 'alpha', 'data/b.csv': 'b,c\n' });
      const regionSession = await regional();
      const created = await regionSession.createProject('Copy');
      const writer = await regionSession.openWriter(created.id, { newProject: true, message: 'test' });
      for await (const entry of regionSession.walk(source.id)) {
        if (entry.kind !== 'file') continue;
        const file = { size: entry.size, open: () => entry.open() };
        await writer.putFile(entry.path.split('/').slice(1), file, 'ignore');
      }
      await writer.commit();
      const copy = fake.nodeTitled('Copy')!;
      expect(copy.region).toBe(OTHER_REGION);
      expect(fake.contentOf(copy, 'a.txt')?.toString()).toBe('alpha');
      expect(fake.contentOf(copy, 'data/b.csv')?.toString()).toBe('b,c\n');
      expect(fake.files.requests).toEqual([]);
    });

    it('refuses a link to a file service the target does not list, sending it nothing', async () => {
      // this session's target trusts the default region's file service only
      const project = fake.addProject(alice, 'Elsewhere', { 'a.txt': 'a' }, { region: OTHER_REGION });
      const [file] = filesOf(await walked(session, project.id));
      expect(await failureOf(file.open())).toEqual({
        status: 502,
        message: `OSF keeps these files at ${fake.regionalFiles.origin}, a file service this target does not trust with the token (options.files_url and options.files_urls name those it trusts).`,
      });
      const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
      expect((await failureOf(writer.putFile(['b.txt'], incoming('b'), 'ignore'))).status).toBe(502);
      // nor does a target listing other regions send the token to one it does not list
      fake.regionOrigins['au-1'] = 'http://127.0.0.1:9';
      const sydney = fake.addProject(alice, 'Sydney', { 'a.txt': 'a' }, { region: 'au-1' });
      const [far] = filesOf(await walked(await regional(), sydney.id));
      expect((await failureOf(far.open())).status).toBe(502);
      expect(fake.regionalFiles.requests).toEqual([]);
    });
  });

  describe('public projects of other users', () => {
    /** Bob's public project, with a private component Alice may not see. */
    function seedBobsProject(): FakeNode {
      const project = fake.addProject(
        bob,
        'Open Data',
        { 'a.txt': 'alpha', 'data/b.csv': 'b,c\n' },
        {
          public: true,
          tags: ['open'],
        },
      );
      fake.addProject(bob, 'Hidden Part', { 'secret.txt': 's' }, { parent: project });
      return project;
    }

    it('shows, finds by id, walks and reads a public project of another user, without its private parts', async () => {
      const project = seedBobsProject();
      const detail = await session.getResource(project.id);
      expect(detail).toMatchObject({
        kind: 'container',
        title: 'Open Data',
        extra: { public: true, current_user_is_contributor: false, current_user_permissions: ['read'] },
      });
      expect(detail.children.map((child) => child.title)).toEqual(['a.txt', 'data']);
      const found = await session.listResources({ page: 1, search: { filter: 'id', value: project.id } });
      expect(found.resources.map((resource) => resource.id)).toEqual([project.id]);
      expect(await session.keywords(project.id)).toEqual(['open']);

      const entries = await walked(session, project.id);
      const files = entries.filter((entry): entry is RemoteFile => entry.kind === 'file');
      expect(files.map((file) => file.path)).toEqual(['Open Data/a.txt', 'Open Data/data/b.csv']);
      expect((await readAll(await files[0].open())).toString()).toBe('alpha');
      expect(await files[0].sourceHashes(['sha256'])).toEqual({ sha256: sha256('alpha') });
      const file = fake.entryAt(project, 'a.txt')!;
      expect((await session.getResource(file.id)).hashes).toEqual({
        md5: md5('alpha'),
        sha256: sha256('alpha'),
      });
    });

    it('refuses every write into it with 403 before any of it reaches OSF', async () => {
      const project = seedBobsProject();
      const folder = fake.entryAt(project, 'data/')!;
      const file = fake.entryAt(project, 'a.txt')!;
      const message = `This user may read the OSF project ${project.id} but not change it: only its contributors with write permission can.`;
      for (const id of [project.id, `${project.id}:osfstorage`, folder.id])
        expect(await failureOf(session.openWriter(id, { newProject: false, message: 'test' }))).toEqual({
          status: 403,
          message,
        });
      for (const id of [project.id, file.id])
        expect(await failureOf(session.setKeywords(id, ['mine']))).toEqual({ status: 403, message });
      expect(fake.api.requests.filter((request) => request.method !== 'GET')).toEqual([]);
      expect(fake.files.requests).toEqual([]);
      expect(project.tags).toEqual(['open']);
    });
  });

  describe('faults', () => {
    it('waits as long as a 429 asks, then carries on', async () => {
      fake.addProject(alice, 'Patient');
      fake.api.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { errors: [{ detail: 'Request was throttled.' }] },
        match: { path: /\/nodes\/$/ },
      });
      const started = Date.now();
      const page = await session.listResources({ page: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(page.resources.map((resource) => resource.title)).toEqual(['Patient']);
      expect(
        fake.api.requests.filter((request) => parsed(request).pathname.endsWith('/nodes/')),
      ).toHaveLength(2);
    });

    it('gives up on a lasting 5xx with an error that names OSF and what it said', async () => {
      fake.api.inject({
        kind: 'status',
        status: 503,
        times: 10,
        body: { errors: [{ detail: 'Service unavailable.' }] },
        match: { path: /\/nodes\/$/ },
      });
      const failure = await failureOf(session.listResources({ page: 1 }));
      expect(failure.status).toBe(502);
      expect(failure.message).toMatch(/^OSF answered 503: .*Service unavailable/);
      expect(failure.message).not.toContain('alice-token');
    });

    it('resumes a download cut short with a Range request to the storage', async () => {
      const content = Buffer.alloc(1 << 20);
      for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 0xff;
      const project = fake.addProject(alice, 'Cut', { 'blob.bin': content });
      fake.storage.inject({ kind: 'cut', afterBytes: 300_000 });
      const [file] = (await walked(session, project.id)).filter(
        (entry): entry is RemoteFile => entry.kind === 'file',
      );
      expect(md5(await readAll(await file.open()))).toBe(md5(content));
      expect(fake.storage.requests.map((request) => request.headers.range)).toEqual([
        undefined,
        `bytes=300000-${content.length - 1}`,
      ]);
    });
  });

  describe('writing', () => {
    it("reports OSF's checksums of what it stored, and names the file by its OSF id", async () => {
      const project = await session.createProject('Stored');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'test' });
      const result = await writer.putFile(['docs', 'a.txt'], incoming('alpha'), 'ignore');
      expect(result).toMatchObject({
        outcome: 'created',
        path: '/Stored/docs/a.txt',
        hashes: { md5: md5('alpha'), sha256: sha256('alpha') },
      });
      expect(result.id).toBe(fake.entryAt(fake.nodeTitled('Stored')!, 'docs/a.txt')!.id);
    });

    it('leaves a duplicate alone with ignore, without reading the incoming file', async () => {
      const project = fake.addProject(alice, 'Kept', { 'a.txt': 'old' });
      const file = incoming('new');
      const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
      const result = await writer.putFile(['a.txt'], file, 'ignore');
      expect(result).toMatchObject({
        outcome: 'ignored',
        hashes: { md5: md5('old'), sha256: sha256('old') },
      });
      expect(file.opened).toBe(0);
      expect(fake.files.requests).toEqual([]);
    });

    it('with update, sends nothing when the content is what OSF holds, and a new version when it differs', async () => {
      const project = fake.addProject(alice, 'Versions', { 'a.txt': 'one' });
      const stored = fake.entryAt(project, 'a.txt')!;
      const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
      const same = incoming('one');
      expect((await writer.putFile(['a.txt'], same, 'update')).outcome).toBe('ignored');
      expect(same.opened).toBe(1);
      expect(fake.files.requests).toEqual([]);

      const changed = await writer.putFile(['a.txt'], incoming('two'), 'update');
      expect(changed).toMatchObject({ outcome: 'updated', id: stored.id, hashes: { sha256: sha256('two') } });
      const [put] = fake.files.requests;
      expect(put.method).toBe('PUT');
      expect(parsed(put).pathname).toBe(`/v1/resources/${project.id}/providers/osfstorage/${stored.id}`);
      expect(Object.fromEntries(parsed(put).searchParams)).toEqual({ kind: 'file' });
      expect(fake.contentOf(project, 'a.txt')?.toString()).toBe('two');
      expect(stored.kind === 'file' && stored.versions.length).toBe(2);
    });

    it('uses folders that exist and makes each missing one once, even for files put at the same time', async () => {
      const project = fake.addProject(alice, 'Folders', { 'data/old.txt': 'old' });
      const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
      await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          writer.putFile(['data', 'new', `${name}.txt`], incoming(name), 'ignore'),
        ),
      );
      const folderPuts = fake.files.requests.filter(
        (request) => parsed(request).searchParams.get('kind') === 'folder',
      );
      expect(folderPuts.map((request) => parsed(request).searchParams.get('name'))).toEqual(['new']);
      const data = fake.entryAt(project, 'data/');
      expect(data?.kind === 'folder' && data.children.map((child) => child.name)).toEqual(['old.txt', 'new']);
      expect(fake.contentOf(project, 'data/new/b.txt')?.toString()).toBe('b');
    });

    it('uses a folder another writer made meanwhile, when WaterButler answers 409', async () => {
      const project = fake.addProject(alice, 'Race');
      const writers = await Promise.all(
        [1, 2].map(() => session.openWriter(project.id, { newProject: false, message: 'test' })),
      );
      // both writers find no folder, then both ask WaterButler to make it
      await Promise.all(
        writers.map((writer, i) => writer.putFile(['shared', `${i}.txt`], incoming(`${i}`), 'ignore')),
      );
      const folderPuts = fake.files.requests.filter(
        (request) => parsed(request).searchParams.get('kind') === 'folder',
      );
      expect(folderPuts).toHaveLength(2);
      expect(fake.files.answers.map((answer) => answer.status)).toContain(409);
      const root = project.storages.get('osfstorage')!;
      expect(root.children.map((child) => child.name)).toEqual(['shared']);
      expect(fake.contentOf(project, 'shared/0.txt')?.toString()).toBe('0');
      expect(fake.contentOf(project, 'shared/1.txt')?.toString()).toBe('1');
    });

    it('into a project it made for this run, stores each file and folder without looking for one first; a name put twice is handled as anywhere', async () => {
      const project = await session.createProject('Fresh');
      fake.api.requests.length = 0;
      const writer = await session.openWriter(project.id, {
        newProject: true,
        startsEmpty: true,
        message: 'test',
      });
      // the node as OSF answered its creation: only its storages are asked for
      expect(fake.api.requests.map((request) => parsed(request).pathname)).toEqual([
        `/v2/nodes/${project.id}/files/`,
      ]);
      const opened = fake.api.requests.length;
      const first = await writer.putFile(['a.txt'], incoming('alpha'), 'ignore');
      const nested = await writer.putFile(['docs', 'b.txt'], incoming('beta'), 'ignore');
      expect(first).toMatchObject({ outcome: 'created', hashes: { sha256: sha256('alpha') } });
      expect(nested).toMatchObject({ outcome: 'created', path: '/Fresh/docs/b.txt' });
      // the only listing is the one that gives the folder it made its links
      const listings = fake.api.requests
        .slice(opened)
        .map((request) => parsed(request).searchParams.get('filter[name]'));
      expect(listings).toEqual(['docs']);
      expect(fake.files.requests.map((request) => parsed(request).searchParams.get('name'))).toEqual([
        'a.txt',
        'docs',
        'b.txt',
      ]);

      // WaterButler's 409 for a name this writer put already: ignored, or a new version with update
      const again = incoming('other');
      expect(await writer.putFile(['a.txt'], again, 'ignore')).toMatchObject({
        outcome: 'ignored',
        hashes: { sha256: sha256('alpha') },
      });
      expect(fake.files.answers.at(-1)?.status).toBe(409);
      expect(await writer.putFile(['docs', 'b.txt'], incoming('gamma'), 'update')).toMatchObject({
        outcome: 'updated',
        hashes: { sha256: sha256('gamma') },
      });
      const node = fake.nodeTitled('Fresh')!;
      expect(fake.contentOf(node, 'a.txt')?.toString()).toBe('alpha');
      expect(fake.contentOf(node, 'docs/b.txt')?.toString()).toBe('gamma');
    });

    it("numbers a title the user already has at the top level, but not another user's or a component's", async () => {
      const survey = fake.addProject(alice, 'Survey');
      fake.addProject(alice, 'Survey (2)', {}, { parent: survey });
      fake.addProject(bob, 'Survey (3)');
      fake.addProject(alice, 'Survey of Surveys');
      expect((await session.createProject('Survey')).title).toBe('Survey (2)');
      expect((await session.createProject('Survey')).title).toBe('Survey (3)');
      const created = fake.api.requests.find((request) => request.method === 'POST');
      expect(parsed(created!).pathname).toBe('/v2/nodes/');
    });

    it('refuses names OSF cannot hold, and writing into a file', async () => {
      const project = fake.addProject(alice, 'Names', { 'f.txt': 'f' });
      const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
      for (const path of [['..', 'x.txt'], ['a', ''], []])
        expect((await failureOf(writer.putFile(path, incoming('x'), 'ignore'))).status).toBe(400);
      const file = fake.entryAt(project, 'f.txt')!;
      expect(await failureOf(session.openWriter(file.id, { newProject: false, message: 'test' }))).toEqual({
        status: 400,
        message: `The Resource provided, ${file.id}, is not a container`,
      });
    });
  });

  describe('keywords', () => {
    it('reads and writes the tags of projects, components and osfstorage files', async () => {
      const { project, component } = seedLayout();
      const readme = fake.entryAt(project, 'readme.txt')!;
      for (const id of [project.id, component.id, readme.id]) {
        expect(await session.setKeywords(id, ['soil', 'water'])).toEqual(['soil', 'water']);
        expect(await session.keywords(id)).toEqual(['soil', 'water']);
      }
      expect(readme.tags).toEqual(['soil', 'water']);
      const patches = fake.api.requests
        .filter((request) => request.method === 'PATCH')
        .map((request) => parsed(request).pathname);
      expect(patches).toEqual([
        `/v2/nodes/${project.id}/`,
        `/v2/nodes/${component.id}/`,
        `/v2/files/${readme.id}/`,
      ]);
    });

    it('refuses keywords of storages, folders and files of other providers, which OSF has no tags for', async () => {
      const { project } = seedLayout();
      for (const id of [
        `${project.id}:osfstorage`,
        fake.entryAt(project, 'data/')!.id,
        fake.entryAt(project, 'notes/n.txt', 'dropbox')!.id,
      ]) {
        expect((await failureOf(session.keywords(id))).status).toBe(400);
        expect((await failureOf(session.setKeywords(id, ['x']))).status).toBe(400);
      }
      expect(fake.api.requests.filter((request) => request.method === 'PATCH')).toEqual([]);
    });
  });

  describe('status', () => {
    it("probes the API's root without credentials", async () => {
      fake.api.requests.length = 0;
      expect(await connector.status()).toEqual({ ok: true, detail: 'Connected to server successfully' });
      expect(fake.api.requests.map((request) => [request.url, request.headers.authorization])).toEqual([
        ['/v2/', undefined],
      ]);
      const down = osfConnector.create({ api_url: 'http://127.0.0.1:9/v2/' }, connectorContext());
      expect(await down.status()).toMatchObject({ ok: false });
    });
  });

  it("answers, through a realistic session, only JSON that OSF's published description allows (as corrected)", async () => {
    const { project } = seedLayout();
    fake.api.answers.length = 0;
    await session.listResources({ page: 1 });
    await session.listResources({ search: { filter: 'author', value: 'Bob' }, page: 1 });
    await session.getResource(project.id);
    await session.getResource(fake.entryAt(project, 'readme.txt')!.id);
    await session.getResource(`${project.id}:dropbox`);
    await walked(session, project.id);
    const created = await session.createProject('Described');
    const writer = await session.openWriter(created.id, { newProject: true, message: 'test' });
    await writer.putFile(['data', 'values.csv'], incoming('x,y\n'), 'ignore');
    await writer.putFile(['data', 'values.csv'], incoming('x,y,z\n'), 'update');
    await session.setKeywords(created.id, ['described']);
    await session.setKeywords(fake.entryAt(project, 'readme.txt')!.id, ['described']);
    await connector.open('mallory-token').catch(() => undefined);
    expect(fake.api.answers.length).toBeGreaterThan(20);
    expect(osfDescription().problems(fake.api.answers)).toEqual([]);
  });
});
