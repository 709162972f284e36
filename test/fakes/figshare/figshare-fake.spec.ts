import { createHash } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type { RecordedAnswer } from '../fake-server';
import { FigshareFake } from './figshare-fake';
import { figshareDescription } from './openapi';

const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');

/** Bytes that differ from one offset to the next, so that a part stored at the wrong place shows. */
function patterned(size: number): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + (i >> 8)) & 0xff));
}

/** An object of an answer's JSON. */
type Json = Record<string, unknown>;

describe('the fake FigShare', () => {
  let fake: FigshareFake;
  let alice: number;
  /** every JSON answer of the API, of every test, checked against the OpenAPI description at the end */
  const answers: RecordedAnswer[] = [];

  beforeAll(async () => {
    fake = await new FigshareFake().start();
  });

  beforeEach(() => {
    answers.push(...fake.server.answers);
    fake.reset();
    alice = fake.addUser('alice-token', {
      email: 'alice@example.org',
      firstName: 'Alice',
      lastName: 'Liddell',
    });
    fake.addUser('bob-token');
  });

  afterAll(async () => {
    await fake.stop();
  });

  /**
   * A request to `url` (a path of the API, or a full URL), with the token given (none for null). By undici's
   * `request`, as `fetch` drops the body of a 205 (a "null body status" of the Fetch standard), which FigShare
   * sends with one.
   */
  async function call(
    method: Dispatcher.HttpMethod,
    url: string,
    options: { token?: string | null; json?: unknown; bytes?: Buffer } = {},
  ) {
    const { token = 'alice-token', json, bytes } = options;
    const headers: Record<string, string> = token === null ? {} : { authorization: `token ${token}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await request(url.startsWith('http') ? url : `${fake.server.url}${url}`, {
      method,
      headers,
      body: json !== undefined ? JSON.stringify(json) : bytes,
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      location: response.headers.location,
      body: text === '' ? null : JSON.parse(text),
    };
  }

  const newProject = async (title: string) =>
    (await call('POST', '/account/projects', { json: { title } })).body.entity_id as number;
  const newArticle = async (projectId: number, json: object) =>
    (await call('POST', `/account/projects/${projectId}/articles`, { json })).body.entity_id as number;

  describe('account', () => {
    it('answers the account of a token sent in the header or as access_token', async () => {
      const reply = await call('GET', '/account');
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ id: alice, email: 'alice@example.org', first_name: 'Alice' });
      expect(reply.body.last_name).toBe('Liddell');
      const byQuery = await call('GET', '/account?access_token=alice-token', { token: null });
      expect(byQuery.body.id).toBe(alice);
    });

    it('answers 403 with an ErrorMessage for an unknown or a missing token', async () => {
      for (const token of ['mallory-token', null]) {
        for (const path of ['/account', '/account/projects']) {
          const reply = await call('GET', path, { token });
          expect({ path, status: reply.status, body: reply.body }).toEqual({
            path,
            status: 403,
            body: { message: expect.any(String), code: 403 },
          });
        }
      }
    });
  });

  describe('projects and articles', () => {
    it('creates a project (201, with its location) and shows it complete', async () => {
      const created = await call('POST', '/account/projects', {
        json: { title: 'Coral Reef Survey', description: 'Counts of corals', funding: 'NSF' },
      });
      expect(created.status).toBe(201);
      const id = created.body.entity_id;
      expect(id).toBeGreaterThanOrEqual(100_000);
      expect(created.body.location).toBe(`${fake.server.url}/account/projects/${id}`);
      expect(created.location).toBe(created.body.location);
      const shown = await call('GET', created.body.location);
      expect(shown.body).toMatchObject({
        id,
        title: 'Coral Reef Survey',
        description: 'Counts of corals',
        funding: 'NSF',
        account_id: alice,
        role: 'Owner',
        published_date: null,
      });
      expect(fake.projectsOf(alice).map((project) => project.title)).toEqual(['Coral Reef Survey']);
    });

    it('refuses titles out of 3 to 1000 characters, and bodies that are no JSON object, with 400', async () => {
      for (const json of [{}, { title: 'ab' }, { title: 'x'.repeat(1001) }, ['a list']])
        expect((await call('POST', '/account/projects', { json })).status).toBe(400);
      expect(fake.projectsOf(alice)).toEqual([]);
    });

    it('creates articles in a project and lists them oldest first, paged', async () => {
      const project = await newProject('Reef');
      const created = await call('POST', `/account/projects/${project}/articles`, {
        json: { title: 'Figures', defined_type: 'figure', tags: ['plots'] },
      });
      expect(created.status).toBe(201);
      const figures = created.body.entity_id;
      expect(figures).toBeGreaterThanOrEqual(20_000_000);
      expect(created.body).toEqual({ entity_id: figures, location: expect.any(String), warnings: [] });
      expect(created.location).toBe(created.body.location);
      const tables = await newArticle(project, { title: 'Tables', keywords: ['csv'] });
      const listed = await call('GET', `/account/projects/${project}/articles`);
      expect(listed.body.map((a: Json) => [a.id, a.defined_type_name, a.defined_type])).toEqual([
        [figures, 'figure', 1],
        [tables, 'dataset', 3],
      ]);
      const second = await call('GET', `/account/projects/${project}/articles?page=2&page_size=1`);
      expect(second.body.map((a: Json) => a.id)).toEqual([tables]);
      const detail = await call('GET', `/account/projects/${project}/articles/${tables}`);
      expect(detail.body).toMatchObject({ id: tables, title: 'Tables', tags: ['csv'], is_public: false });
      expect(fake.article(tables)).toMatchObject({ projectId: project, tags: ['csv'] });
      const elsewhere = await newProject('Elsewhere');
      expect((await call('GET', `/account/projects/${elsewhere}/articles/${tables}`)).status).toBe(404);
    });

    it('updates an article with PUT or PATCH (205), tags replacing tags, modifying it and its project', async () => {
      const project = fake.seedProject(alice, {
        title: 'Reef',
        articles: [{ title: 'Data', tags: ['a', 'b'] }],
      });
      const article = project.articles[0];
      const before = { article: article.modified, project: project.modified };
      const put = await call('PUT', `/account/articles/${article.id}`, { json: { tags: ['c'] } });
      expect(put.status).toBe(205);
      expect(put.body).toEqual({
        location: `${fake.server.url}/account/articles/${article.id}`,
        warnings: [],
      });
      expect(put.location).toBe(put.body.location);
      expect(
        (await call('PATCH', `/account/articles/${article.id}`, { json: { title: 'Data 2' } })).status,
      ).toBe(205);
      const shown = await call('GET', `/account/articles/${article.id}`);
      expect(shown.body).toMatchObject({ title: 'Data 2', tags: ['c'], files: [], account_id: alice });
      expect(article.modified > before.article && project.modified > before.project).toBe(true);
      expect(project.modified).toBe(article.modified);
    });

    it("refuses another user's project and article with 403, and unknown ids with 404", async () => {
      const theirs = fake.seedProject(alice, { title: 'Mine', articles: [{ title: 'Data' }] });
      const article = theirs.articles[0].id;
      for (const path of [`/account/projects/${theirs.id}`, `/account/articles/${article}`])
        expect((await call('GET', path, { token: 'bob-token' })).status).toBe(403);
      for (const path of [
        '/account/projects/99',
        '/account/articles/99',
        `/account/articles/${article}/files/1`,
      ])
        expect((await call('GET', path)).status).toBe(404);
    });

    it('updates a project (205) and deletes it (204), its articles staying with their owner', async () => {
      const project = fake.seedProject(alice, { title: 'Old', articles: [{ title: 'Kept' }] });
      const put = await call('PUT', `/account/projects/${project.id}`, {
        json: { description: 'New words' },
      });
      expect([put.status, put.body, put.location]).toEqual([
        205,
        null,
        `${fake.server.url}/account/projects/${project.id}`,
      ]);
      expect(fake.project(project.id)?.description).toBe('New words');
      expect((await call('DELETE', `/account/projects/${project.id}`)).status).toBe(204);
      expect((await call('GET', `/account/projects/${project.id}`)).status).toBe(404);
      expect((await call('GET', `/account/articles/${project.articles[0].id}`)).body.title).toBe('Kept');
    });
  });

  describe('uploads', () => {
    it('takes a file of three parts through the upload service, then completes it', async () => {
      fake.partSize = 1000;
      const project = fake.seedProject(alice, { title: 'Parts', articles: [{ title: 'Parts' }] });
      const article = project.articles[0].id;
      const bytes = patterned(2500);
      const created = await call('POST', `/account/articles/${article}/files`, {
        json: { name: 'data.bin', size: bytes.length, md5: md5(bytes) },
      });
      expect(created.status).toBe(201);
      expect(created.location).toBe(created.body.location);
      const file = (await call('GET', created.body.location)).body;
      expect(file).toMatchObject({ name: 'data.bin', size: 2500, status: 'created', computed_md5: '' });
      expect(file.id).toBeGreaterThanOrEqual(40_000_000);
      expect(file.upload_url).toBe(`${fake.uploads.url}/upload/${file.upload_token}`);

      const upload = await call('GET', file.upload_url, { token: null });
      expect(upload.body).toEqual({
        token: file.upload_token,
        name: 'data.bin',
        size: 2500,
        md5: md5(bytes),
        status: 'PENDING',
        parts: [
          { partNo: 1, startOffset: 0, endOffset: 999, status: 'PENDING', locked: false },
          { partNo: 2, startOffset: 1000, endOffset: 1999, status: 'PENDING', locked: false },
          { partNo: 3, startOffset: 2000, endOffset: 2499, status: 'PENDING', locked: false },
        ],
      });
      const short = await call('PUT', `${file.upload_url}/2`, {
        token: null,
        bytes: bytes.subarray(1000, 1999),
      });
      expect(short.status).toBe(400);
      expect((await call('GET', `${file.upload_url}/2`, { token: null })).body.status).toBe('PENDING');
      for (const part of upload.body.parts.slice(0, 2)) {
        const body = bytes.subarray(part.startOffset, part.endOffset + 1);
        expect(
          (await call('PUT', `${file.upload_url}/${part.partNo}`, { token: null, bytes: body })).status,
        ).toBe(200);
      }
      const early = await call('POST', `/account/articles/${article}/files/${file.id}`);
      expect([early.status, early.body.message]).toEqual([400, expect.stringContaining('part(s) 3')]);
      await call('PUT', `${file.upload_url}/3`, { token: null, bytes: bytes.subarray(2000) });
      expect((await call('GET', `${file.upload_url}/3`, { token: null })).body.status).toBe('COMPLETE');

      const completed = await call('POST', `/account/articles/${article}/files/${file.id}`);
      expect([completed.status, completed.body]).toEqual([202, null]);
      expect((await call('GET', `/account/articles/${article}/files/${file.id}`)).body).toMatchObject({
        status: 'available',
        supplied_md5: md5(bytes),
        computed_md5: md5(bytes),
        download_url: `${fake.downloads.url}/files/${file.id}`,
      });
      expect((await call('GET', file.upload_url, { token: null })).body.status).toBe('COMPLETED');
      expect(fake.article(article)?.files[0].content.equals(bytes)).toBe(true);
      expect(fake.uploads.requests.map((request) => request.headers.authorization)).toEqual(
        fake.uploads.requests.map(() => undefined),
      );
    });

    it('gives an empty file no parts, lists files in the project, and deletes a file (204)', async () => {
      const project = fake.seedProject(alice, {
        title: 'Files',
        articles: [{ title: 'Files', files: { 'a.txt': 'a' } }],
      });
      const article = project.articles[0].id;
      const created = await call('POST', `/account/articles/${article}/files`, {
        json: { name: 'empty', size: 0 },
      });
      const empty = (await call('GET', created.body.location)).body;
      expect((await call('GET', empty.upload_url, { token: null })).body.parts).toEqual([]);
      expect((await call('POST', created.body.location)).status).toBe(202);
      const listed = await call('GET', `/account/projects/${project.id}/articles/${article}/files`);
      expect(listed.body.map((f: Json) => [f.name, f.status, f.computed_md5])).toEqual([
        ['a.txt', 'available', md5('a')],
        ['empty', 'available', md5('')],
      ]);
      expect((await call('GET', `/account/articles/${article}/files`)).body).toEqual(listed.body);
      const one = await call('GET', `/account/projects/${project.id}/articles/${article}/files/${empty.id}`);
      expect(one.body.id).toBe(empty.id);
      expect((await call('DELETE', created.body.location)).status).toBe(204);
      expect((await call('GET', created.body.location)).status).toBe(404);
      expect((await call('GET', empty.upload_url, { token: null })).status).toBe(404);
    });

    it('refuses a file without a name or a size with 422', async () => {
      const article = fake.seedProject(alice, { title: 'Files', articles: [{ title: 'Files' }] }).articles[0];
      for (const json of [
        { name: 'a' },
        { size: 1 },
        { name: 'a', size: -1 },
        { name: 'a', size: 1, md5: 5 },
      ])
        expect((await call('POST', `/account/articles/${article.id}/files`, { json })).status).toBe(422);
    });
  });

  describe('listing and searching', () => {
    const titles = (reply: { body: Json[] }) => reply.body.map((project) => project.title);

    it("pages the caller's projects, newest first unless asked otherwise, and refuses bad parameters", async () => {
      const seeded = Array.from({ length: 12 }, (_, i) => fake.seedProject(alice, { title: `P${i}` }));
      fake.seedProject(fake.addUser('carol-token'), { title: 'Not hers' });
      const newestFirst = seeded.map((project) => project.title).reverse();
      expect(titles(await call('GET', '/account/projects'))).toEqual(newestFirst.slice(0, 10));
      expect(titles(await call('GET', '/account/projects?page=2'))).toEqual(newestFirst.slice(10));
      expect(titles(await call('GET', '/account/projects?limit=3&offset=2'))).toEqual(
        newestFirst.slice(2, 5),
      );
      await call('PUT', `/account/projects/${seeded[0].id}`, { json: { title: 'P0 again' } });
      const byModified = await call(
        'GET',
        '/account/projects?order=modified_date&order_direction=asc&page_size=1000',
      );
      expect(titles(byModified)).toEqual([...seeded.slice(1).map((project) => project.title), 'P0 again']);
      for (const query of [
        'page_size=0',
        'page_size=1001',
        'page=0',
        'offset=5001',
        'order=title',
        'page=1&limit=2',
      ])
        expect({ query, status: (await call('GET', `/account/projects?${query}`)).status }).toEqual({
          query,
          status: 400,
        });
    });

    it('searches titles and descriptions, by words, phrases and the :title: field operator', async () => {
      fake.seedProject(alice, { title: 'Coral Reef Survey', description: 'Counts along the reef' });
      fake.seedProject(alice, { title: 'Desert Soil Study', description: 'Sand from coral-free dunes' });
      fake.seedProject(fake.addUser('carol-token'), { title: 'Coral Reef Survey' });
      const search = async (json: object) => titles(await call('POST', '/account/projects/search', { json }));
      expect(await search({ search_for: 'CORAL' })).toEqual(['Desert Soil Study', 'Coral Reef Survey']);
      expect(await search({ search_for: ':title: coral' })).toEqual(['Coral Reef Survey']);
      expect(await search({ search_for: 'coral dunes' })).toEqual(['Desert Soil Study']);
      expect(await search({ search_for: '"reef survey"' })).toEqual(['Coral Reef Survey']);
      expect(await search({ search_for: '"survey reef"' })).toEqual([]);
      expect(await search({ search_for: 'coral', page_size: 1, page: 2 })).toEqual(['Coral Reef Survey']);
      expect(await search({ search_for: 'coral', order: 'modified_date', order_direction: 'asc' })).toEqual([
        'Coral Reef Survey',
        'Desert Soil Study',
      ]);
      expect((await call('POST', '/account/projects/search', { json: { page_size: 0 } })).status).toBe(400);
    });
  });

  describe('downloads', () => {
    it("serves a file to its owner's token only, with its length, and from an offset (206)", async () => {
      const project = fake.seedProject(alice, {
        title: 'Got',
        articles: [{ title: 'Got', files: { 'a.txt': 'abcdef' } }],
      });
      const url = `${fake.downloads.url}/files/${project.articles[0].files[0].id}`;
      const whole = await fetch(url, { headers: { authorization: 'token alice-token' } });
      expect([whole.status, whole.headers.get('content-length'), await whole.text()]).toEqual([
        200,
        '6',
        'abcdef',
      ]);
      const rest = await fetch(url, { headers: { authorization: 'token alice-token', range: 'bytes=2-' } });
      expect([rest.status, rest.headers.get('content-range'), await rest.text()]).toEqual([
        206,
        'bytes 2-5/6',
        'cdef',
      ]);
      for (const token of [null, 'bob-token', 'nobody']) {
        const headers: Record<string, string> = token === null ? {} : { authorization: `token ${token}` };
        expect((await fetch(url, { headers })).status).toBe(403);
      }
      expect((await fetch(`${fake.downloads.url}/files/1`)).status).toBe(404);
    });
  });

  describe('published projects', () => {
    it('shows a published project, its articles and their files to anyone, and nothing unpublished', async () => {
      const project = fake.seedProject(alice, {
        title: 'Shared',
        published: true,
        articles: [{ title: 'Shared data', files: { 'a.txt': 'abc' } }],
      });
      const [article] = project.articles;
      const [file] = article.files;
      for (const token of [null, 'bob-token']) {
        const shown = await call('GET', `/projects/${project.id}`, { token });
        expect(shown).toMatchObject({ status: 200, body: { id: project.id, title: 'Shared' } });
        expect(shown.body.published_date).toEqual(expect.any(String));
        const listed = await call('GET', `/projects/${project.id}/articles`, { token });
        expect(listed.body.map((each: Json) => each.id)).toEqual([article.id]);
        const detail = await call('GET', `/articles/${article.id}`, { token });
        expect(detail.body).toMatchObject({ id: article.id, is_public: true, files: [{ id: file.id }] });
        const files = await call('GET', `/articles/${article.id}/files`, { token });
        expect(files.body).toEqual([expect.objectContaining({ id: file.id, computed_md5: md5('abc') })]);
        expect((await call('GET', `/articles/${article.id}/files/${file.id}`, { token })).status).toBe(200);
        const download = await fetch(`${fake.downloads.url}/files/${file.id}`);
        expect([download.status, await download.text()]).toEqual([200, 'abc']);
      }
      const hidden = fake.seedProject(alice, { title: 'Hidden', articles: [{ title: 'Hidden data' }] });
      for (const path of [
        `/projects/${hidden.id}`,
        `/projects/${hidden.id}/articles`,
        `/articles/${hidden.articles[0].id}`,
        `/articles/${hidden.articles[0].id}/files`,
      ])
        expect((await call('GET', path, { token: 'bob-token' })).status).toBe(404);
    });
  });

  describe("FigShare's OpenAPI description", () => {
    it('allows every JSON answer the API gave in the tests above', () => {
      answers.push(...fake.server.answers);
      const templates = new Set(
        answers.map((answer) => `${answer.method} ${answer.template} ${answer.status}`),
      );
      expect([...templates]).toEqual(
        expect.arrayContaining([
          'GET /account 200',
          'GET /account 403',
          'GET /account/projects 200',
          'GET /account/projects/{project_id} 200',
          'POST /account/projects 201',
          'POST /account/projects/search 200',
          'GET /account/projects/{project_id}/articles 200',
          'POST /account/projects/{project_id}/articles 201',
          'GET /account/projects/{project_id}/articles/{article_id} 200',
          'GET /account/projects/{project_id}/articles/{article_id}/files 200',
          'GET /account/projects/{project_id}/articles/{article_id}/files/{file_id} 200',
          'GET /account/articles/{article_id} 200',
          'GET /account/articles/{article_id} 403',
          'PUT /account/articles/{article_id} 205',
          'PATCH /account/articles/{article_id} 205',
          'GET /account/articles/{article_id}/files 200',
          'POST /account/articles/{article_id}/files 201',
          'GET /account/articles/{article_id}/files/{file_id} 200',
          'GET /projects/{project_id} 200',
          'GET /projects/{project_id} 404',
          'GET /projects/{project_id}/articles 200',
          'GET /articles/{article_id} 200',
          'GET /articles/{article_id}/files 200',
          'GET /articles/{article_id}/files/{file_id} 200',
        ]),
      );
      expect(figshareDescription().problems(answers)).toEqual([]);
    });
  });
});
