import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, touch, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const PROJECT_COUNT = 23;
const README = '# Alpha\nsome words\n';

describe('read endpoints (real API and worker processes)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let upstream: Server;
  let root: string;

  beforeAll(async () => {
    upstream = createServer((_req, res) => res.writeHead(200).end('{}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;

    root = mkdtempSync(join(tmpdir(), 'presqt-fs-'));
    const files: Record<string, string> = {};
    for (let i = 1; i <= PROJECT_COUNT; i++)
      files[`alice/Project ${String(i).padStart(2, '0')}/notes.txt`] = `p${i}`;
    files['alice/Alpha Study/README.md'] = README;
    files['alice/Alpha Study/data/sub dir/values.csv'] = 'a,b\n1,2\n';
    files['alice/Alpha Study/PRESQT_FTS_METADATA.json'] = JSON.stringify({
      allKeywords: ['Hydrology', 'river basins'],
      actions: [],
      extra_metadata: { creators: [{ first_name: 'Grace', last_name: 'Hopper', ORCID: null }] },
    });
    files['alice/Beta Survey/.presqt-keywords.json'] = JSON.stringify(['ornithology']);
    files['bob/Bob Secret/secret.txt'] = 'top secret';
    writeTree(root, files);
    for (let i = 1; i <= PROJECT_COUNT; i++)
      touch(join(root, 'alice', `Project ${String(i).padStart(2, '0')}`), 100 + i);
    touch(join(root, 'alice', 'Alpha Study'), 1);
    touch(join(root, 'alice', 'Beta Survey'), 2);

    const targetsFile = writeTargetsFile([
      filesystemEntry('fs', root),
      filesystemEntry('fs_titles', root, {
        search_parameters: ['title'],
        supported_actions: { ...filesystemEntry('x', root).supported_actions, resource_detail: false },
      }),
      filesystemEntry('fs_closed', root, {
        supported_actions: {
          ...filesystemEntry('x', root).supported_actions,
          resource_collection: false,
          resource_detail: false,
        },
      }),
      {
        ...filesystemEntry('osf', root),
        connector: 'osf',
        search_parameters: ['title', 'id', 'author', 'keywords'],
        // the connector probes its own API's root for the status
        options: { api_url: `http://127.0.0.1:${upstreamPort}/v2/` },
        status_url: `http://127.0.0.1:${upstreamPort}/v2/`,
      },
      {
        ...filesystemEntry('github', root),
        connector: 'github',
        // the connector probes its own API: a port where nothing listens, so the check needs no network
        options: { api_url: 'http://127.0.0.1:9/' },
        status_url: 'http://127.0.0.1:9/down',
      },
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, PER_PAGE: '10' } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    upstream?.close();
  });

  const totalProjects = PROJECT_COUNT + 2;

  describe('catalogue endpoints', () => {
    it('GET /api_v1/ links to the other endpoints with absolute URLs', async () => {
      const res = await http.get('/api_v1/').expect(200);
      expect(res.body.targets).toBe(`${stack.baseUrl}/api_v1/targets/`);
      expect(res.body.statuses).toBe(`${stack.baseUrl}/api_v1/statuses/`);
      expect(res.body.services).toBe(`${stack.baseUrl}/api_v1/services/`);
      await http.get('/api_v1').expect(200);
    });

    it('lists services and shows one; an unknown service is 404', async () => {
      const list = await http.get('/api_v1/services/').expect(200);
      expect(list.body.map((s: { name: string }) => s.name)).toEqual([
        'presqt',
        'emulation',
        'fairshare',
        'assessment',
        'keyword_enhancement',
        'eaasi',
        'fairshake',
      ]);
      const detail = await http.get('/api_v1/services/assessment').expect(200);
      expect(detail.body).toMatchObject({ name: 'assessment', readable_name: expect.any(String) });
      expect(list.body[3]).toEqual(detail.body);
      // every service links to its endpoints, and following each link works
      const links = list.body.flatMap(
        (s: { links: { name: string; link: string; method: string }[] }) => s.links,
      );
      expect(links.map((l: { name: string; method: string }) => `${l.method} ${l.name}`)).toEqual([
        'GET Detail',
        'POST Keyword Enhancement',
        'GET Detail',
        'POST Proposals',
        'GET Detail',
        'GET Tests',
        'POST Evaluate',
        'GET Detail',
        'GET Rubric 7',
        'GET Rubric 8',
        'GET Rubric 9',
        'GET Detail',
        'POST Keyword Enhancement',
        'GET Detail',
        'POST Proposals',
        'GET Detail',
        'GET Rubric 93',
        'GET Rubric 94',
        'GET Rubric 95',
        'GET Rubric 96',
      ]);
      for (const { name, link, method } of links as { name: string; link: string; method: string }[]) {
        expect(link.startsWith(`${stack.baseUrl}/api_v1/services/`)).toBe(true);
        const path = link.slice(stack.baseUrl.length);
        if (name === 'Evaluate') {
          // an evaluation would ask the public FAIR Evaluator: only the endpoint's own check is looked at here
          const refused = await http.post(path).send({}).expect(400);
          expect(refused.body.error).toContain("'resource_id' missing");
          continue;
        }
        const res =
          method === 'GET' ? await http.get(path) : await http.post(path).send({ keywords: ['ocean'] });
        // no proposer is configured in this stack: the proposal link answers that clearly
        expect([200, 202, 503]).toContain(res.status);
        if (res.status === 503) expect(res.body.error).toContain('EMULATION_API_URL');
      }
      const missing = await http.get('/api_v1/services/nope/').expect(404);
      expect(missing.body.error).toContain("Invalid Service Name 'nope'");
    });

    it('lists targets without connector settings, with a Detail link', async () => {
      const res = await http.get('/api_v1/targets/').expect(200);
      expect(res.body.map((t: { name: string }) => t.name)).toEqual([
        'fs',
        'fs_titles',
        'fs_closed',
        'osf',
        'github',
      ]);
      const fs = res.body[0];
      expect(fs).not.toHaveProperty('options');
      expect(fs).not.toHaveProperty('connector');
      expect(JSON.stringify(res.body)).not.toContain('alice-token');
      expect(fs.links).toEqual([
        { name: 'Detail', link: `${stack.baseUrl}/api_v1/targets/fs/`, method: 'GET' },
      ]);
      expect(fs.search_parameters).toEqual(['general', 'title', 'id', 'author', 'keywords']);
    });

    it('shows a target with Collection, Upload and Transfer links; unknown target is 404', async () => {
      const res = await http.get('/api_v1/targets/fs').expect(200);
      expect(res.body.token_url).toBe('http://localhost/token');
      expect(res.body.links.map((l: { name: string; method: string }) => `${l.name} ${l.method}`)).toEqual([
        'Collection GET',
        'Upload POST',
        'Transfer POST',
      ]);
      expect(res.body.links[0].link).toBe(`${stack.baseUrl}/api_v1/targets/fs/resources/`);
      const missing = await http.get('/api_v1/targets/nowhere/').expect(404);
      expect(missing.body).toEqual({ error: "PresQT Error: Invalid Target Name 'nowhere'" });
    });

    it('reports each target upstream as ok or error', async () => {
      const res = await http.get('/api_v1/statuses/').expect(200);
      const byName = Object.fromEntries(res.body.map((s: { name: string }) => [s.name, s]));
      expect(byName.fs).toMatchObject({ service: 'fs', status: 'ok' });
      expect(byName.osf).toMatchObject({ status: 'ok', detail: 'Connected to server successfully' });
      expect(byName.github.status).toBe('error');
      expect(byName.github.detail).toMatch(/ECONNREFUSED|connect/i);
    });
  });

  describe('resource collection', () => {
    it('pages through every project, newest first', async () => {
      const first = await http.get('/api_v1/targets/fs/resources/').set(ALICE).expect(200);
      expect(first.body.pages).toMatchObject({ total_pages: 3, per_page: 10, previous_page: null });
      expect(first.body.resources.slice(0, 3).map((r: { title: string }) => r.title)).toEqual([
        'Alpha Study',
        'Beta Survey',
        'Project 01',
      ]);
      const seen: string[] = [];
      let next: string | null = first.body.pages.base_page + '1';
      while (next) {
        const page: request.Response = await request(next).get('').set(ALICE).expect(200);
        seen.push(...page.body.resources.map((r: { title: string }) => r.title));
        next = page.body.pages.next_page;
      }
      expect(seen).toHaveLength(totalProjects);
      expect(new Set(seen).size).toBe(totalProjects);
      expect(seen.at(-1)).toBe('Project 23');
      const last = await http.get('/api_v1/targets/fs/resources?page=3').set(ALICE).expect(200);
      expect(last.body.resources).toHaveLength(totalProjects - 20);
      expect(last.body.pages.next_page).toBeNull();
      expect(last.body.pages.previous_page).toBe(`${stack.baseUrl}/api_v1/targets/fs/resources/?page=2`);
    });

    it('shows resource summaries with container null and a Detail link', async () => {
      const res = await http.get('/api_v1/targets/fs/resources').set(ALICE).expect(200);
      const alpha = res.body.resources[0];
      expect(alpha).toEqual({
        kind: 'container',
        kind_name: 'project',
        id: fsId('Alpha Study'),
        container: null,
        title: 'Alpha Study',
        links: [
          {
            name: 'Detail',
            link: `${stack.baseUrl}/api_v1/targets/fs/resources/${fsId('Alpha Study')}/`,
            method: 'GET',
          },
        ],
      });
    });

    it('keeps each user to their own resources', async () => {
      const res = await http
        .get('/api_v1/targets/fs/resources/')
        .set('presqt-source-token', 'bob-token')
        .expect(200);
      expect(res.body.resources.map((r: { title: string }) => r.title)).toEqual(['Bob Secret']);
    });

    it.each([
      ['title', 'alpha', ['Alpha Study']],
      ['title', 'Project+2', ['Project 20', 'Project 21', 'Project 22', 'Project 23']],
      ['keywords', 'hydrology', ['Alpha Study']],
      ['keywords', 'ornithology', ['Beta Survey']],
      ['author', 'hopper', ['Alpha Study']],
      ['general', 'river', ['Alpha Study']],
      ['id', fsId('Alpha Study'), ['Alpha Study']],
      ['id', fsId('Alpha Study/data/sub dir'), ['sub dir']],
      ['title', 'no such thing', []],
    ])('searches by %s=%s', async (filter, value, titles) => {
      const res = await http.get(`/api_v1/targets/fs/resources/?${filter}=${value}`).set(ALICE).expect(200);
      expect(res.body.resources.map((r: { title: string }) => r.title)).toEqual(titles);
      if (titles.length > 0) expect(res.body.pages.base_page).toContain(`${filter}=`);
    });

    it('gives a nested id hit its container', async () => {
      const res = await http
        .get(`/api_v1/targets/fs/resources/?id=${fsId('Alpha Study/data/sub dir')}`)
        .set(ALICE);
      expect(res.body.resources[0]).toMatchObject({
        kind: 'container',
        kind_name: 'folder',
        container: fsId('Alpha Study/data'),
      });
    });

    it('treats a blank search as no search, and pages a search', async () => {
      const blank = await http.get('/api_v1/targets/fs/resources/?title=').set(ALICE).expect(200);
      expect(blank.body.pages.total_pages).toBe(3);
      const searched = await http
        .get('/api_v1/targets/fs/resources/?title=project&page=2')
        .set(ALICE)
        .expect(200);
      expect(searched.body.resources).toHaveLength(10);
      expect(searched.body.pages.next_page).toBe(
        `${stack.baseUrl}/api_v1/targets/fs/resources/?title=project&page=3`,
      );
    });

    it('answers 400 without a token', async () => {
      const res = await http.get('/api_v1/targets/fs/resources/').expect(400);
      expect(res.body).toEqual({
        error: "PresQT Error: 'presqt-source-token' missing in the request headers.",
      });
    });

    it.each([
      ['/api_v1/targets/fs/resources/?page=0', 'Page must be a positive integer'],
      ['/api_v1/targets/fs/resources/?page=abc', 'Page must be a positive integer'],
      ['/api_v1/targets/fs/resources/?page=-1', 'Page must be a positive integer'],
      ['/api_v1/targets/fs/resources/?title=a&author=b', 'only one search filter'],
      ['/api_v1/targets/fs/resources/?title=a&title=b', "'title' query parameter must be given once"],
      ['/api_v1/targets/fs/resources/?colour=red', "'colour' is not a query parameter"],
      ['/api_v1/targets/fs_titles/resources/?author=x', 'does not support author as a search parameter'],
      [
        '/api_v1/targets/fs_closed/resources/',
        "'fs_closed' does not support the action 'resource_collection'",
      ],
    ])('answers 400 for %s', async (path, message) => {
      const res = await http.get(path).set(ALICE).expect(400);
      expect(res.body.error).toContain(message);
    });

    it('answers 401 for a token the target rejects', async () => {
      const res = await http
        .get('/api_v1/targets/fs/resources/')
        .set('presqt-source-token', 'wrong')
        .expect(401);
      expect(res.body).toEqual({ error: 'Token is invalid. Response returned a 401 status code.' });
    });

    it('answers 404 for an unknown target', async () => {
      const missing = await http.get('/api_v1/targets/nope/resources/').set(ALICE).expect(404);
      expect(missing.body).toEqual({ error: "PresQT Error: 'nope' is not a valid Target name." });
    });
  });

  describe('resource detail', () => {
    const readmeId = fsId('Alpha Study/README.md');

    it('shows a file with its hashes, size and path', async () => {
      const res = await http.get(`/api_v1/targets/fs/resources/${readmeId}.json/`).set(ALICE).expect(200);
      expect(res.body).toMatchObject({
        kind: 'item',
        kind_name: 'file',
        id: readmeId,
        title: 'README.md',
        hashes: {
          md5: createHash('md5').update(README).digest('hex'),
          sha256: createHash('sha256').update(README).digest('hex'),
        },
        extra: { size: README.length, path: '/Alpha Study/README.md' },
        children: [],
        actions: ['Transfer'],
      });
      expect(new Date(res.body.date_modified).toISOString()).toBe(res.body.date_modified);
      expect(res.body.links.map((l: { name: string }) => l.name)).toEqual(['Detail', 'Download']);
    });

    it('shows a project with its children and links, with or without .json and the slash', async () => {
      for (const path of [
        `${fsId('Alpha Study')}.json/`,
        `${fsId('Alpha Study')}.json`,
        `${fsId('Alpha Study')}/`,
      ]) {
        const res = await http.get(`/api_v1/targets/fs/resources/${path}`).set(ALICE).expect(200);
        expect(res.body.children.map((c: { title: string; kind: string }) => `${c.kind}:${c.title}`)).toEqual(
          ['container:data', 'item:PRESQT_FTS_METADATA.json', 'item:README.md'],
        );
        expect(res.body.children[0].container).toBe(fsId('Alpha Study'));
        expect(res.body.hashes).toEqual({ md5: null, sha256: null });
        expect(res.body.links.map((l: { name: string }) => l.name)).toEqual([
          'Detail',
          'Download',
          'Upload',
          'Transfer',
        ]);
        expect(res.body.links[1].link).toBe(
          `${stack.baseUrl}/api_v1/targets/fs/resources/${fsId('Alpha Study')}.zip/`,
        );
      }
    });

    it.each([
      ['xml', 400, 'xml is not a valid format for this endpoint'],
      ['csv', 400, 'csv is not a valid format for this endpoint'],
    ])('answers 400 for the format %s', async (format, status, message) => {
      const res = await http
        .get(`/api_v1/targets/fs/resources/${readmeId}.${format}/`)
        .set(ALICE)
        .expect(status);
      expect(res.body.error).toContain(message);
    });

    it('answers each error row', async () => {
      expect(
        (await http.get(`/api_v1/targets/fs/resources/${readmeId}.json/`).expect(400)).body.error,
      ).toContain('presqt-source-token');
      await http
        .get(`/api_v1/targets/fs/resources/${readmeId}.json/`)
        .set('presqt-source-token', 'x')
        .expect(401);
      await http.get(`/api_v1/targets/none/resources/${readmeId}.json/`).set(ALICE).expect(404);
      const unsupported = await http
        .get(`/api_v1/targets/fs_titles/resources/${readmeId}.json/`)
        .set(ALICE)
        .expect(400);
      expect(unsupported.body.error).toContain("does not support the action 'resource_detail'");
      const unknown = await http
        .get(`/api_v1/targets/fs/resources/${fsId('Alpha Study/nothing.txt')}.json/`)
        .set(ALICE);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toContain('not found for this user');
    });

    it.each([
      ['../bob/Bob Secret/secret.txt'],
      ['..'],
      ['/etc/passwd'],
      ['Alpha Study/../../bob/Bob Secret'],
      ['./Alpha Study'],
      ['Alpha Study//README.md'],
    ])('never reaches outside the user directory: %s', async (path) => {
      const res = await http.get(`/api_v1/targets/fs/resources/${fsId(path)}.json/`).set(ALICE);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('top secret');
    });

    it.each([['%2e%2e'], ['..%2F..%2Fetc'], ['not base64 !'], ['%00']])(
      'answers 404 for a crafted id %s',
      async (id) => {
        const res = await http.get(`/api_v1/targets/fs/resources/${id}.json/`).set(ALICE);
        expect(res.status).toBe(404);
        expect(res.body.error).toBeDefined();
      },
    );
  });

  describe('routing', () => {
    it('answers an unknown route with 404 JSON and a wrong method with 405 JSON', async () => {
      const missing = await http.get('/api_v1/nothing/here/').expect(404);
      expect(missing.body.error).toContain('no endpoint at GET /api_v1/nothing/here/');
      const wrong = await http.delete('/api_v1/targets/').expect(405);
      expect(wrong.body.error).toContain('method DELETE is not allowed');
      expect(wrong.headers.allow).toContain('GET');
    });

    it('answers a broken percent-encoding in a path with 400, not 500', async () => {
      const res = await http.get('/api_v1/targets/fs/resources/%FF.json/').set(ALICE).expect(400);
      expect(res.body.error).toContain('the request could not be read');
    });

    it('serves Swagger UI and an OpenAPI document listing every endpoint', async () => {
      const ui = await http.get('/api/docs').redirects(1).expect(200);
      expect(ui.text).toContain('swagger');
      const doc = await http.get('/api/docs-json').expect(200);
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining([
          '/api_v1',
          '/api_v1/services',
          '/api_v1/services/{serviceName}',
          '/api_v1/targets',
          '/api_v1/targets/{targetName}',
          '/api_v1/statuses',
          '/api_v1/targets/{targetName}/resources',
          '/api_v1/targets/{targetName}/resources/{resource}',
          '/api_v1/targets/{targetName}/resources/{resourceId}/keywords',
          '/api_v1/services/presqt/keyword_enhancement',
          '/api_v1/services/emulation/proposals',
          '/api_v1/services/assessment/rubric/{rubricId}',
        ]),
      );
    });
  });
});
