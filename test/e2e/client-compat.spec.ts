import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ALL_ACTIONS, filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { FakeCurateNd } from '../fakes/curate_nd/fake-curate-nd';
import { FakeFairEvaluator } from '../fakes/fair-evaluator/fake-fair-evaluator';
import { makeBagZip, zipOf } from '../support/bags';
import { startFakeProposer, type FakeProposer } from '../support/fake-proposer';
import { freePort } from '../support/ports';
import {
  binaryParser,
  downloadTo,
  extractZip,
  pollUntil,
  pollUntilDone,
  verifyBagZip,
} from '../support/jobs';
import { peakRssDuring, startStack, type Stack } from '../support/stack';

/** What the PresQT web client (presqt-ui) sends: see docs/web-client.md. */
const SOURCE = { 'presqt-source-token': 'alice-token' };
const DESTINATION = { 'presqt-destination-token': 'alice-token' };
const BOTH = { ...SOURCE, ...DESTINATION };
/** axios 0.19 sends a PATCH with a null body as an empty form */
const EMPTY_FORM = 'application/x-www-form-urlencoded';
/** The path and query of one of our absolute URLs, for supertest. */
const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
/** the BagIt tool's large upload */
const BIG_BYTES = 96 << 20;
const partners = (names: string[]) => ({ transfer_in: names, transfer_out: names });

function testTargets(manyFiles = 30): string {
  const root = mkdtempSync(join(tmpdir(), 'presqt-compat-'));
  const many: Record<string, Buffer> = {};
  // big enough that a cancel sent after its first file lands while the job runs
  for (let i = 0; i < manyFiles; i++) many[`alice/Many/f${i}.bin`] = randomBytes(4 << 20);
  writeTree(root, {
    'alice/Soil Study/README.md': '# Soil\n',
    'alice/Soil Study/data/readings.csv': 'site,value\nA,1\n',
    'alice/Ocean Survey/notes.txt': 'waves\n',
    ...many,
  });
  return writeTargetsFile([
    filesystemEntry('lab', root, { supported_transfer_partners: partners(['archive']) }),
    filesystemEntry('archive', mkdtempSync(join(tmpdir(), 'presqt-compat-archive-')), {
      supported_transfer_partners: partners(['lab']),
    }),
  ]);
}

describe('the PresQT web client against the real API, worker and Redis', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let evaluator: FakeFairEvaluator;
  let proposer: FakeProposer;

  beforeAll(async () => {
    evaluator = await new FakeFairEvaluator().start();
    proposer = await startFakeProposer();
    stack = await startStack({
      env: {
        TARGETS_FILE: testTargets(),
        ANNOUNCEMENT: ' Maintenance tonight. ',
        FAIRSHARE_EVALUATOR_URL: evaluator.evaluateUrl,
        EMULATION_API_URL: proposer.url,
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    await evaluator?.stop();
    await proposer?.close();
  });

  /** A transfer from lab into a new project at archive, as the client starts it. */
  const startTransfer = (project: string, fairshare: 'yes' | 'no') =>
    http
      .post('/api_v1/targets/archive/resources/')
      .set({
        ...BOTH,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
        'presqt-fairshare-evaluator-opt-in': fairshare,
        'content-type': 'application/json;charset=utf-8',
      })
      .send(JSON.stringify({ source_target_name: 'lab', source_resource_id: fsId(project), keywords: [] }));

  it('answers every path it calls with and without the trailing slash, a search with none before the ?', async () => {
    for (const path of ['targets', 'services', 'statuses', 'targets/lab']) {
      await http.get(`/api_v1/${path}`).expect(200);
      await http.get(`/api_v1/${path}/`).expect(200);
    }
    const searched = await http.get('/api_v1/targets/lab/resources?title=Soil+Study').set(SOURCE).expect(200);
    expect(searched.body.resources.map((r: { title: string }) => r.title)).toEqual(['Soil Study']);
    // the pager appends the page number to base_page
    const page = await http
      .get(`${pathOf(searched.body.pages.base_page)}1`)
      .set(SOURCE)
      .expect(200);
    expect(page.body.resources).toEqual(searched.body.resources);
    await http.get('/api_v1/targets/lab/resources').set(SOURCE).expect(200);
    await http.get('/api_v1/targets/archive/resources?page=1').set(SOURCE).expect(200);
    await http
      .get(`/api_v1/targets/lab/resources/${fsId('Soil Study')}`)
      .set(SOURCE)
      .expect(200);
  });

  it('answers the announcement banner at /announcements.json, outside api_v1', async () => {
    const res = await http.get('/announcements.json').expect(200);
    expect(res.body).toEqual({ show: true, message: 'Maintenance tonight.' });
  });

  it('gives a resource detail its identifier and no top-level boolean', async () => {
    for (const id of [fsId('Soil Study'), fsId('Soil Study/README.md')]) {
      const detail = await http.get(`/api_v1/targets/lab/resources/${id}/`).set(SOURCE).expect(200);
      const detailLink = `${stack.baseUrl}/api_v1/targets/lab/resources/${id}/`;
      expect(detail.body.identifier).toBe(detailLink);
      expect(detail.body.links).toContainEqual({ name: 'Detail', link: detailLink, method: 'GET' });
      // the client renders every other top-level key and has no renderer for booleans
      expect(Object.values(detail.body).filter((value) => typeof value === 'boolean')).toEqual([]);
      expect(Array.isArray(detail.body.children)).toBe(true);
    }
  });

  it('links a finished upload and transfer to the resource written', async () => {
    const zip = await makeBagZip({ files: { 'Uploaded/notes.txt': 'hello\n' } });
    await http
      .post('/api_v1/targets/archive/resources/')
      .set({ ...DESTINATION, 'presqt-file-duplicate-action': 'ignore', 'presqt-email-opt-in': '' })
      .attach('presqt-file', zip, 'Uploaded.zip')
      .expect(202);
    const uploaded = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', DESTINATION);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.link_to_resource).toBe(
      `${stack.baseUrl}/api_v1/targets/archive/resources/${fsId('Uploaded')}/`,
    );
    await startTransfer('Ocean Survey', 'no').expect(202);
    const transferred = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', BOTH);
    expect(transferred.status).toBe(200);
    expect(transferred.body.link_to_resource).toBe(
      `${stack.baseUrl}/api_v1/targets/archive/resources/${fsId('Ocean Survey')}/`,
    );
    expect(transferred.body.fairshare_evaluation_results).toEqual([]);
    const written = await http.get(pathOf(transferred.body.link_to_resource)).set(SOURCE).expect(200);
    expect(written.body.title).toBe('Ocean Survey');
  });

  it('evaluates the written resource with every FAIRshare test when the transfer opts in', async () => {
    const refused = await http
      .post('/api_v1/targets/archive/resources/')
      .set({ ...BOTH, 'presqt-file-duplicate-action': 'ignore', 'presqt-keyword-action': 'none' })
      .set({ 'presqt-email-opt-in': '', 'presqt-fairshare-evaluator-opt-in': 'maybe' })
      .send({ source_target_name: 'lab', source_resource_id: fsId('Soil Study'), keywords: [] })
      .expect(400);
    expect(refused.body).toEqual({
      error: "PresQT Error: 'presqt-fairshare-evaluator-opt-in' must be 'yes' or 'no'.",
    });

    evaluator.server.latencyMs = 1500;
    await startTransfer('Soil Study', 'yes').expect(202);
    const evaluating = await pollUntil(stack.baseUrl, '/api_v1/job_status/transfer/', BOTH, (body) =>
      String(body.message).startsWith('Running FAIRshare Evaluator Service'),
    );
    expect(evaluating.status).toBe('in_progress');
    evaluator.server.latencyMs = 0;
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', BOTH);
    expect(done.status).toBe(200);
    const written = `${stack.baseUrl}/api_v1/targets/archive/resources/${fsId('Soil Study')}/`;
    expect(done.body.link_to_resource).toBe(written);
    expect(evaluator.evaluations.at(-1)?.input.resource).toBe(written);
    const results = done.body.fairshare_evaluation_results;
    expect(results.map((result: { test_id: number }) => result.test_id)).toEqual([
      1, 2, 4, 5, 6, 7, 8, 10, 13, 17, 19, 22,
    ]);
    expect(results[0].successes).toEqual(["Found an identifier of type 'uri' for test 1"]);

    // an evaluator that fails is reported in the results; the transfer itself succeeded
    evaluator.server.inject({ kind: 'status', status: 503 });
    await startTransfer('Soil Study', 'yes').expect(202);
    const unevaluated = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', BOTH);
    expect(unevaluated.status).toBe(200);
    expect(unevaluated.body.fairshare_evaluation_results).toEqual([
      { error: 'PresQT Error: the FAIRshare evaluator answered 503 to the evaluation request.' },
    ]);
  });

  it('lists the FAIRshare tests and evaluates a resource identifier with the FAIR Evaluator', async () => {
    await http.get('/api_v1/services/fairshare/').expect(200);
    const tests = await http.get('/api_v1/services/fairshare/evaluator/').expect(200);
    expect(tests.body.map((test: { test_id: number }) => test.test_id)).toEqual([
      1, 2, 4, 5, 6, 7, 8, 10, 13, 17, 19, 22,
    ]);
    for (const test of tests.body) {
      expect(test).toEqual({
        test_id: expect.any(Number),
        test_name: expect.any(String),
        description: expect.any(String),
      });
    }

    const identifier = `${stack.baseUrl}/api_v1/targets/lab/resources/${fsId('Soil Study')}/`;
    const evaluated = await http
      .post('/api_v1/services/fairshare/evaluator/')
      .set({ 'presqt-email-opt-in': '', 'content-type': 'application/json;charset=utf-8' })
      .send(JSON.stringify({ resource_id: identifier, tests: [8, 1] }))
      .expect(200);
    expect(evaluator.evaluations.at(-1)).toMatchObject({
      collection: '16',
      input: { resource: identifier, executor: 'PresQT' },
    });
    expect(evaluated.body).toEqual([
      expect.objectContaining({
        test_id: 8,
        metric_link: 'https://w3id.org/FAIR_Evaluator/metrics/8',
        successes: [],
        failures: [`Test 8 found nothing for ${identifier}`],
        warnings: ['The search engine could not be asked.'],
      }),
      expect.objectContaining({
        test_id: 1,
        test_name: tests.body[0].test_name,
        description: tests.body[0].description,
        successes: ["Found an identifier of type 'uri' for test 1"],
        failures: [],
        warnings: [],
      }),
    ]);

    const refusals: Array<[unknown, string]> = [
      [{ tests: [1] }, "PresQT Error: 'resource_id' missing in the request body."],
      [{ resource_id: identifier }, "PresQT Error: 'tests' missing in the request body."],
      [{ resource_id: identifier, tests: 1 }, "PresQT Error: 'tests' must be in list format."],
      [
        { resource_id: identifier, tests: [] },
        'PresQT Error: At least one test is required. Options are: [1, 2, 4, 5, 6, 7, 8, 10, 13, 17, 19, 22]',
      ],
      [
        { resource_id: identifier, tests: [3] },
        "PresQT Error: '3' not a valid test id. Options are: [1, 2, 4, 5, 6, 7, 8, 10, 13, 17, 19, 22]",
      ],
    ];
    for (const [body, error] of refusals) {
      const refused = await http
        .post('/api_v1/services/fairshare/evaluator/')
        .send(body as object)
        .expect(400);
      expect(refused.body).toEqual({ error });
    }

    evaluator.server.inject({ kind: 'status', status: 500, body: { error: 'boom' } });
    const failed = await http
      .post('/api_v1/services/fairshare/evaluator/')
      .send({ resource_id: identifier, tests: [1] })
      .expect(502);
    expect(failed.body).toEqual({
      error: 'PresQT Error: the FAIRshare evaluator answered 500 to the evaluation request.',
    });
  });

  it('lists the services it knows as aliases of ours, each answering its detail', async () => {
    const list = await http.get('/api_v1/services/').expect(200);
    const aliases = list.body
      .filter((service: { alias_of?: string }) => service.alias_of !== undefined)
      .map(({ name, alias_of }: { name: string; alias_of: string }) => [name, alias_of]);
    expect(aliases).toEqual([
      ['keyword_enhancement', 'presqt'],
      ['eaasi', 'emulation'],
      ['fairshake', 'assessment'],
    ]);
    for (const name of [
      'presqt',
      'emulation',
      'assessment',
      'fairshare',
      ...aliases.map(([n]: string[]) => n),
    ]) {
      const detail = await http.get(`/api_v1/services/${name}/`).expect(200);
      expect(detail.body).toMatchObject({ name, readable_name: expect.any(String) });
    }
    const docs = await http.get('/api/docs-json').expect(200);
    const tagged = Object.entries(docs.body.paths as Record<string, Record<string, { tags?: string[] }>>)
      .filter(([, operations]) =>
        Object.values(operations).some((op) => op.tags?.includes('presqt-ui aliases')),
      )
      .map(([path]) => path);
    expect(tagged).toEqual([
      '/api_v1/services/fairshake/rubric/{rubricId}',
      '/api_v1/services/eaasi/proposals',
      '/api_v1/services/eaasi/proposals/{proposalId}',
    ]);
  });

  it("answers FAIRshake rubrics in the client's shapes, and assesses by hand and automatically (96)", async () => {
    const rubric = await http.get('/api_v1/services/fairshake/rubric/95/').expect(200);
    expect(rubric.body.metrics.map((metric: { id: string }) => metric.id)).toEqual(['12', '15', '17', '20']);
    expect(rubric.body.metrics[0]).toEqual({ id: '12', metric_value: expect.any(String) });
    expect(rubric.body.answer_options).toEqual([
      { value: '0.0', value_text: 'no' },
      { value: '0.25', value_text: 'nobut' },
      { value: '0.5', value_text: 'maybe' },
      { value: '0.75', value_text: 'yesbut' },
      { value: '1.0', value_text: 'yes' },
    ]);
    const identifier = `${stack.baseUrl}/api_v1/targets/lab/resources/${fsId('Ocean Survey')}/`;
    const byHand = await http
      .post('/api_v1/services/fairshake/rubric/95/')
      .send({
        project_url: identifier,
        project_title: 'Ocean Survey',
        rubric_answers: { '12': '1.0', '15': '0.5', '17': '0.0', '20': '0.75' },
      })
      .expect(200);
    expect(byHand.body.rubric_responses.map((r: { score: string }) => r.score)).toEqual([
      '1.0',
      '0.5',
      '0.0',
      '0.75',
    ]);

    const automatic = await http
      .post('/api_v1/services/fairshake/rubric/96/')
      .send({ project_url: identifier, project_title: 'Ocean Survey', rubric_answers: {} })
      .expect(200);
    expect(evaluator.evaluations.at(-1)?.input.resource).toBe(identifier);
    // the fake passes tests 1 and 10 for a URL: metrics 90 and 110 (answered in metric order: 30, 90, 109, ...)
    expect(automatic.body).toEqual({
      digital_object_id: byHand.body.digital_object_id,
      rubric_responses: ['0.0', '1.0', '0.0', '1.0', '0.0', '0.0'].map((score) => ({
        metric: expect.any(String),
        score,
        score_explanation: score === '1.0' ? 'yes' : 'no',
      })),
    });
    const unknown = await http.get('/api_v1/services/fairshake/rubric/7/').expect(400);
    expect(unknown.body.error).toContain("'7' is not a valid rubric id. Choices are: 93, 94, 95, 96.");
  });

  it("starts an EaaSI proposal for the token's last download at services/eaasi/proposals/", async () => {
    await http
      .get(`/api_v1/targets/lab/resources/${fsId('Soil Study')}.zip/`)
      .set({ ...SOURCE, 'presqt-email-opt-in': '' })
      .expect(202);
    expect((await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', SOURCE)).status).toBe(
      200,
    );
    const started = await http
      .post('/api_v1/services/eaasi/proposals/')
      .set({ ...SOURCE, 'content-type': 'application/json;charset=utf-8' })
      .send('{}')
      .expect(200);
    expect(started.body.proposal_link).toBe(
      `${stack.baseUrl}/api_v1/services/eaasi/proposals/${started.body.id}/`,
    );
    const done = await pollUntilDone(stack.baseUrl, pathOf(started.body.proposal_link), {});
    expect(done.status).toBe(200);
    expect(done.body.image_url).toEqual(expect.any(String));
    expect(proposer.tasks.get(String(started.body.id))).toMatchObject({ validBag: true });
  });

  it('bags the files of an uploaded zip and answers the bag, zipped (the BagIt tool)', async () => {
    const zip = await zipOf([
      { name: 'Field Notes/day1.txt', content: 'sunny\n', deflate: true },
      { name: 'Field Notes/data/readings.csv', content: 'a,1\n' },
      { name: 'Field Notes/empty/' },
      { name: 'Field Notes/.DS_Store', content: 'junk' },
      { name: '__MACOSX/Field Notes/._day1.txt', content: 'junk' },
    ]);
    const res = await http
      .post('/api_v1/bag_and_zip/')
      .attach('presqt-file', zip, 'notes.zip')
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="presqt_notes.zip"');
    const file = await downloadTo(res, 'presqt_notes.zip');
    verifyBagZip(file, 'presqt_bag');
    const bag = join(extractZip(file), 'presqt_bag');
    expect(readFileSync(join(bag, 'data', 'Field Notes', 'day1.txt'), 'utf8')).toBe('sunny\n');
    expect(readFileSync(join(bag, 'data', 'Field Notes', 'data', 'readings.csv'), 'utf8')).toBe('a,1\n');
    expect(existsSync(join(bag, 'data', 'Field Notes', 'empty'))).toBe(true);
    expect(existsSync(join(bag, 'data', 'Field Notes', '.DS_Store'))).toBe(false);
    expect(existsSync(join(bag, 'data', '__MACOSX'))).toBe(false);
    for (const algorithm of ['md5', 'sha1', 'sha256', 'sha512']) {
      expect(existsSync(join(bag, `manifest-${algorithm}.txt`))).toBe(true);
    }

    const missing = await http.post('/api_v1/bag_and_zip/').field('other', 'x').expect(400);
    expect(missing.body).toEqual({
      error: "PresQT Error: The file, 'presqt-file', is not found in the body of the request.",
    });
    const notZip = await http
      .post('/api_v1/bag_and_zip/')
      .attach('presqt-file', Buffer.from('plain text'), 'notes.zip')
      .expect(400);
    expect(notZip.body.error).toContain("'presqt-file', is not a zip file.");
    const unsafe = await http
      .post('/api_v1/bag_and_zip/')
      .attach('presqt-file', await zipOf([{ name: 'a/link', symlinkTo: '/etc/passwd' }]), 'link.zip')
      .expect(400);
    expect(unsafe.body.error).toContain('symbolic link');
  });

  it('streams a large bag through the BagIt tool without holding it in memory', async () => {
    const big = randomBytes(BIG_BYTES);
    const source = join(mkdtempSync(join(tmpdir(), 'presqt-compat-big-')), 'big.zip');
    writeFileSync(source, await zipOf([{ name: 'Big/part.bin', content: big }]));
    const before = (await peakRssDuring(stack.api, () => Promise.resolve())).peakMiB;
    const { result, peakMiB } = await peakRssDuring(stack.api, () =>
      http.post('/api_v1/bag_and_zip/').attach('presqt-file', source).buffer(true).parse(binaryParser),
    );
    expect(result.status).toBe(200);
    // the whole bag came back (the small bag above is checked file by file)
    expect(result.body.length).toBeGreaterThan(BIG_BYTES);
    // the API holds neither the upload nor the answer whole: it grows by less than one of them
    expect(peakMiB - before).toBeLessThan((BIG_BYTES >> 20) * 0.75);
  });

  it('cancels a transfer at job_status/transfers/ with an empty form body, as the client sends it', async () => {
    await startTransfer('Many', 'no').expect(202);
    // cancelled at once: a transfer of 120 MiB between two disks can finish within a few polls
    const pending = await http.get('/api_v1/job_status/transfer/').set(BOTH).expect(202);
    expect(pending.body.message).toBe('Transfer is being processed on the server.');
    const cancelled = await http
      .patch('/api_v1/job_status/transfers/')
      .set({ ...BOTH, 'content-type': EMPTY_FORM })
      .send('')
      .expect(200);
    expect(cancelled.body).toEqual({ status_code: '499', message: 'Transfer was cancelled by the user' });
    const polled = await http.get('/api_v1/job_status/transfer/').set(BOTH).expect(500);
    expect(polled.body).toMatchObject({ status_code: '499', message: 'Transfer was cancelled by the user' });
  });

  it('answers JSON on every error of both download status variants, and a string message while pending', async () => {
    for (const variant of ['download.zip', 'download.json']) {
      const noToken = await http.get(`/api_v1/job_status/${variant}/`).expect(400);
      expect(noToken.type).toBe('application/json');
      // bob never downloads here
      const noJob = await http
        .get(`/api_v1/job_status/${variant}/`)
        .set({ 'presqt-source-token': 'bob-token' })
        .expect(404);
      expect(noJob.body.error).toContain('Invalid ticket number');
    }
    await http
      .get(`/api_v1/targets/lab/resources/${fsId('Many')}.zip/`)
      .set({ ...SOURCE, 'presqt-email-opt-in': '' })
      .expect(202);
    for (const variant of ['download.zip', 'download.json']) {
      const pending = await http.get(`/api_v1/job_status/${variant}/`).set(SOURCE).expect(202);
      expect(pending.type).toBe('application/json');
      expect(typeof pending.body.message).toBe('string');
    }
    await http
      .patch('/api_v1/job_status/download/')
      .set({ ...SOURCE, 'content-type': EMPTY_FORM })
      .send('')
      .expect(200);
    for (const variant of ['download.zip', 'download.json']) {
      const cancelled = await http.get(`/api_v1/job_status/${variant}/`).set(SOURCE).expect(500);
      expect(cancelled.type).toBe('application/json');
      expect(cancelled.body).toMatchObject({
        status_code: '499',
        message: 'Download was cancelled by the user',
      });
    }
    // a cancel of a job that has ended answers 406, with JSON too
    const again = await http
      .patch('/api_v1/job_status/download/')
      .set({ ...SOURCE, 'content-type': EMPTY_FORM })
      .send('')
      .expect(406);
    expect(again.body.status_code).toBe('499');
  });
});

describe('the PresQT web client when the FAIR Evaluator is down', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    // nothing listens on this port
    const closed = await freePort();
    stack = await startStack({
      worker: false,
      env: {
        TARGETS_FILE: testTargets(0),
        FAIRSHARE_EVALUATOR_URL: `http://127.0.0.1:${closed}/FAIR_Evaluator/collections/16/evaluate`,
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('still lists the tests, and says clearly that an evaluation could not reach the evaluator', async () => {
    const tests = await http.get('/api_v1/services/fairshare/evaluator/').expect(200);
    expect(tests.body).toHaveLength(12);
    const failed = await http
      .post('/api_v1/services/fairshare/evaluator/')
      .send({ resource_id: 'https://doi.org/10.5281/zenodo.1147435', tests: [1] })
      .expect(502);
    expect(failed.body).toEqual({
      error: 'PresQT Error: the FAIRshare evaluator could not be reached: ECONNREFUSED.',
    });
  });

  it('answers no announcement when ANNOUNCEMENT is not set', async () => {
    const res = await http.get('/announcements.json').expect(200);
    expect(res.body).toEqual({ show: false, message: '' });
  });
});

describe('a resource detail when its target fails (real API and Redis, fake CurateND)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let curate: FakeCurateNd;
  const TOKEN = { 'presqt-source-token': 'alice-curate-token' };

  beforeAll(async () => {
    curate = await new FakeCurateNd().start();
    curate.addUser('alice-curate-token', 'alice');
    const targetsFile = writeTargetsFile([
      {
        name: 'curate_nd',
        readable_name: 'CurateND',
        status_url: `${curate.url}/items`,
        token_url: 'https://curate.nd.edu/api/access_tokens',
        supported_actions: {
          ...ALL_ACTIONS,
          resource_upload: false,
          resource_transfer_in: false,
          keywords_upload: false,
        },
        supported_transfer_partners: { transfer_in: [], transfer_out: [] },
        supported_hash_algorithms: ['md5'],
        infinite_depth: false,
        search_parameters: ['general', 'title', 'id'],
        connector: 'curate_nd',
        options: { api_url: curate.url },
      },
    ]);
    stack = await startStack({
      worker: false,
      env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRIES: '0', UPSTREAM_TIMEOUT_MS: '2000' },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    await curate?.stop();
  });

  it('answers a placeholder saying what went wrong, with 200, and errors about the request as errors', async () => {
    const id = curate.addWork({ title: 'Lake Study', owner: 'alice', files: { 'a.txt': 'a' } });
    const path = `/api_v1/targets/curate_nd/resources/${id}/`;
    const detail = await http.get(path).set(TOKEN).expect(200);
    expect(detail.body.title).toBe('Lake Study');

    curate.server.inject({ kind: 'status', status: 500, times: 10 });
    const failing = await http.get(path).set(TOKEN).expect(200);
    expect(failing.body).toEqual({
      kind: 'item',
      kind_name: 'unavailable',
      id,
      identifier: `${stack.baseUrl}${path}`,
      title: "CurateND could not give this resource's detail",
      error: expect.stringContaining('CurateND'),
      children: [],
      links: [{ name: 'Detail', link: `${stack.baseUrl}${path}`, method: 'GET' }],
      actions: [],
    });
    curate.server.clearFaults();
    await http.get(path).set({ 'presqt-source-token': 'mallory-token' }).expect(401);
  });
});
