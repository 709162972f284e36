import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import {
  ALL_ACTIONS,
  filesystemEntry,
  fsId,
  writeTargetsFile,
  writeTree,
  partneredEntries,
} from '../support/fs-fixtures';
import { startFakeSciGraph, type FakeSciGraph } from '../support/fake-scigraph';
import { pollUntilDone } from '../support/jobs';
import { startStack, waitForOutput, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const KEYWORDS_FILE = '.presqt-keywords.json';
const METADATA_FILE = 'PRESQT_FTS_METADATA.json';

interface Metadata {
  allKeywords: string[];
  actions: { actionType: string; keywords: Record<string, unknown> }[];
}

function fixtures(): { source: string; destination: string } {
  const source = mkdtempSync(join(tmpdir(), 'presqt-kw-src-'));
  const destination = mkdtempSync(join(tmpdir(), 'presqt-kw-dst-'));
  writeTree(source, {
    [`alice/Study/${KEYWORDS_FILE}`]: JSON.stringify(['Ocean', ' climate change ', 'ocean']),
    [`alice/Study/${METADATA_FILE}`]: JSON.stringify({ allKeywords: ['Birds'], actions: [] }),
    'alice/Study/notes.txt': 'field notes\n',
    'alice/Bare/readme.txt': 'nothing to say\n',
  });
  return { source, destination };
}

function targetsFile(source: string, destination: string): string {
  return writeTargetsFile([
    ...partneredEntries(source, destination),
    filesystemEntry('readonly', source, { supported_actions: { ...ALL_ACTIONS, keywords_upload: false } }),
    filesystemEntry('nokw', source, {
      supported_actions: { ...ALL_ACTIONS, keywords: false, keywords_upload: false },
    }),
  ]);
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('keywords (embedded WordNet enhancer)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let source: string;
  let destination: string;
  const keywordsPath = (target: string, path: string) =>
    `/api_v1/targets/${target}/resources/${fsId(path)}/keywords/`;

  beforeAll(async () => {
    ({ source, destination } = fixtures());
    stack = await startStack({ env: { TARGETS_FILE: targetsFile(source, destination) } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("reads a resource's keywords from the target and its metadata file, with sensible enhancements", async () => {
    const res = await http.get(keywordsPath('src', 'Study')).set(ALICE).expect(200);
    expect(res.body.keywords).toEqual(['ocean', 'climate change', 'birds']);
    // read together: the climate change of an ocean study; nothing for "ocean" and "birds", whose WordNet terms
    // ("body of water", "vertebrate") cover too much to describe it
    expect(res.body.enhanced_keywords).toEqual(['global climate change']);
    for (const keyword of res.body.keywords) expect(res.body.enhanced_keywords).not.toContain(keyword);
    expect(res.body.all_keywords).toEqual([...res.body.keywords, ...res.body.enhanced_keywords]);
    // without the trailing slash too
    await http.get(keywordsPath('src', 'Study').replace(/\/$/, '')).set(ALICE).expect(200);
  });

  it('answers empty lists for a resource without keywords', async () => {
    const res = await http.get(keywordsPath('src', 'Bare')).set(ALICE).expect(200);
    expect(res.body).toEqual({ keywords: [], enhanced_keywords: [], all_keywords: [] });
  });

  it('answers every error row of GET keywords', async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      [keywordsPath('src', 'Study'), {}, 400, "'presqt-source-token' missing"],
      [keywordsPath('nokw', 'Study'), ALICE, 400, "'nokw' does not support the action 'keywords'"],
      [keywordsPath('src', 'Study/notes.txt'), ALICE, 400, 'files on this target have no keywords'],
      [keywordsPath('src', 'Study'), { 'presqt-source-token': 'wrong' }, 401, 'Token is invalid'],
      [keywordsPath('nope', 'Study'), ALICE, 404, "'nope' is not a valid Target name"],
      [keywordsPath('src', 'Missing'), ALICE, 404, 'not found for this user'],
    ];
    for (const [path, headers, status, message] of cases) {
      const res = await http.get(path).set(headers);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.error).toContain(message);
    }
  });

  it('adds keywords at the target and in the metadata file, recording the action', async () => {
    const res = await http
      .post(keywordsPath('src', 'Study'))
      .set(ALICE)
      .send({ keywords: ['Sea Ice', 'ocean', 'sea ice'] })
      .expect(202);
    expect(res.body).toEqual({
      keywords_added: ['sea ice'],
      final_keywords: ['ocean', 'climate change', 'birds', 'sea ice'],
    });
    const study = join(source, 'alice', 'Study');
    expect(readJson<string[]>(join(study, KEYWORDS_FILE))).toEqual(['ocean', 'climate change', 'sea ice']);
    const metadata = readJson<Metadata>(join(study, METADATA_FILE));
    expect(metadata.allKeywords).toEqual(['Birds', 'sea ice', 'ocean']);
    expect(metadata.actions[0]).toMatchObject({
      actionType: 'keyword_enhancement',
      keywords: { sourceKeywordsEnhanced: ['sea ice', 'ocean'] },
    });
    const read = await http.get(keywordsPath('src', 'Study')).set(ALICE).expect(200);
    expect(read.body.keywords).toEqual(['ocean', 'climate change', 'sea ice', 'birds']);
  });

  it('answers every error row of POST keywords, writing nothing', async () => {
    const study = join(source, 'alice', 'Study');
    const before = readFileSync(join(study, KEYWORDS_FILE), 'utf8');
    const cases: [string, Record<string, string>, unknown, number, string][] = [
      [keywordsPath('src', 'Study'), {}, { keywords: ['a'] }, 400, "'presqt-source-token' missing"],
      [
        keywordsPath('nokw', 'Study'),
        ALICE,
        { keywords: ['a'] },
        400,
        "does not support the action 'keywords'",
      ],
      [
        keywordsPath('readonly', 'Study'),
        ALICE,
        { keywords: ['a'] },
        400,
        "'readonly' does not support the action 'keywords_upload'",
      ],
      [
        keywordsPath('src', 'Study/notes.txt'),
        ALICE,
        { keywords: ['a'] },
        400,
        'files on this target have no keywords',
      ],
      [keywordsPath('src', 'Study'), ALICE, {}, 400, "'keywords' is missing from the request body"],
      [keywordsPath('src', 'Study'), ALICE, { keywords: 'a' }, 400, "'keywords' must be in list format"],
      [keywordsPath('src', 'Study'), ALICE, { keywords: [1] }, 400, "'keywords' must be a list of strings"],
      [
        keywordsPath('src', 'Study'),
        { 'presqt-source-token': 'wrong' },
        { keywords: ['a'] },
        401,
        'Token is invalid',
      ],
    ];
    for (const [path, headers, body, status, message] of cases) {
      const res = await http
        .post(path)
        .set(headers)
        .send(body as object);
      expect({ path, body, status: res.status }).toEqual({ path, body, status });
      expect(res.body.error).toContain(message);
    }
    expect(readFileSync(join(study, KEYWORDS_FILE), 'utf8')).toBe(before);
  });

  it('enhances keywords as a service, by POST and by GET with a body', async () => {
    const post = await http
      .post('/api_v1/services/presqt/keyword_enhancement/')
      .send({ keywords: ['Bank', 'river', 'erosion'] })
      .expect(202);
    // the river's bank, not the financial institution
    expect(post.body.keywords_added).toEqual(['slope']);
    expect(post.body.final_keywords).toEqual(['bank', 'river', 'erosion', ...post.body.keywords_added]);
    const java = await http
      .post('/api_v1/services/presqt/keyword_enhancement/')
      .send({ keywords: ['Java', 'software'] })
      .expect(202);
    expect(java.body.keywords_added).toEqual(['object-oriented programming language', 'software program']);
    const get = await http
      .get('/api_v1/services/presqt/keyword_enhancement')
      .send({ keywords: ['Bank', 'river', 'erosion'] })
      .expect(202);
    expect(get.body).toEqual(post.body);
    const empty = await http.post('/api_v1/services/presqt/keyword_enhancement/').send({ keywords: [] });
    expect(empty.status).toBe(202);
    expect(empty.body).toEqual({ keywords_added: [], final_keywords: [] });
    const bad = await http.post('/api_v1/services/presqt/keyword_enhancement/').send({ words: ['x'] });
    expect(bad.status).toBe(400);
  });

  describe('transfers carry keywords as the keyword action says', () => {
    const transfer = async (action: string, keywords: string[]) => {
      const headers = {
        ...ALICE,
        'presqt-destination-token': 'alice-token',
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': action,
        'presqt-email-opt-in': '',
      };
      await http
        .post('/api_v1/targets/dst/resources/')
        .set(headers)
        .send({ source_target_name: 'src', source_resource_id: fsId('Study'), keywords })
        .expect(202);
      const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', headers);
      expect(done.status).toBe(200);
      return done.body as {
        destination_resource_id: string;
        initial_keywords: string[];
        enhanced_keywords: string[];
      };
    };
    const destinationKeywords = async (id: string) =>
      (await http.get(`/api_v1/targets/dst/resources/${id}/keywords/`).set(ALICE).expect(200)).body as {
        keywords: string[];
      };
    const sourceKeywordsFile = () => readFileSync(join(source, 'alice', 'Study', KEYWORDS_FILE), 'utf8');

    it('none: changes no keywords', async () => {
      const before = sourceKeywordsFile();
      const done = await transfer('none', ['ignored']);
      expect(done).toMatchObject({ initial_keywords: [], enhanced_keywords: [] });
      const project = join(destination, 'alice', 'Study');
      expect(existsSync(join(project, KEYWORDS_FILE))).toBe(false);
      // the source's metadata file still brings its own keywords along
      expect(readJson<Metadata>(join(project, METADATA_FILE)).allKeywords).toEqual([
        'Birds',
        'sea ice',
        'ocean',
      ]);
      expect(sourceKeywordsFile()).toBe(before);
    });

    it("manual: the source's keywords plus the request's", async () => {
      const before = sourceKeywordsFile();
      const done = await transfer('manual', ['Tide Pools']);
      expect(done.initial_keywords).toEqual(['ocean', 'climate change', 'sea ice', 'birds']);
      expect(done.enhanced_keywords).toEqual(['tide pools']);
      const id = done.destination_resource_id;
      expect((await destinationKeywords(id)).keywords).toEqual([
        'ocean',
        'climate change',
        'sea ice',
        'birds',
        'tide pools',
      ]);
      expect(sourceKeywordsFile()).toBe(before);
    });

    it("automatic: also what the enhancer finds for the source's keywords", async () => {
      const before = sourceKeywordsFile();
      const done = await transfer('automatic', ['Tide Pools']);
      expect(done.initial_keywords).toEqual(['ocean', 'climate change', 'sea ice', 'birds']);
      expect(done.enhanced_keywords[0]).toBe('tide pools');
      expect(done.enhanced_keywords).toEqual(['tide pools', 'global climate change']);
      const stored = (await destinationKeywords(done.destination_resource_id)).keywords;
      expect(stored).toEqual(expect.arrayContaining([...done.initial_keywords, ...done.enhanced_keywords]));
      const metadata = readJson<Metadata>(join(destination, 'alice', 'Study (3)', METADATA_FILE));
      expect(metadata.actions[0].keywords).toMatchObject({
        sourceKeywordsAdded: done.initial_keywords,
        sourceKeywordsEnhanced: done.enhanced_keywords,
        enhancer: 'wordnet',
      });
      expect(sourceKeywordsFile()).toBe(before);
    });
  });
});

describe('keywords with a SciGraph enhancer', () => {
  let scigraph: FakeSciGraph;
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const { source, destination } = fixtures();
    scigraph = await startFakeSciGraph([
      {
        iri: 'http://purl.obolibrary.org/obo/ENVO_00000015',
        curie: 'ENVO:00000015',
        labels: ['ocean'],
        synonyms: ['marine biome', 'Sea'],
      },
    ]);
    stack = await startStack({
      env: {
        TARGETS_FILE: targetsFile(source, destination),
        KEYWORD_ENHANCER: 'scigraph',
        SCIGRAPH_URL: scigraph.url,
        KEYWORD_ENHANCER_TIMEOUT_MS: '1000',
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    await scigraph?.close();
  });

  it("uses the service's labels and synonyms", async () => {
    const res = await http
      .get(`/api_v1/targets/src/resources/${fsId('Study')}/keywords/`)
      .set(ALICE)
      .expect(200);
    expect(res.body.enhanced_keywords).toEqual(['marine biome', 'sea']);
    expect(scigraph.requests.map((r) => r.term).sort()).toEqual(['birds', 'climate change', 'ocean']);
  });

  it('answers with the embedded enhancer when the service is down, and logs a warning', async () => {
    scigraph.mode = 'error';
    const res = await http
      .get(`/api_v1/targets/src/resources/${fsId('Study')}/keywords/`)
      .set(ALICE)
      .expect(200);
    expect(res.body.keywords).toEqual(['ocean', 'climate change', 'birds']);
    expect(res.body.enhanced_keywords).toEqual(['global climate change']);
    // the log line comes through a pipe of its own: it may arrive after the answer
    await waitForOutput(stack.api, /"level":"warn".*KeywordEnhancer/);
    expect(stack.api.output()).toContain(scigraph.url);
  });
});
