import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { makeBagZip } from '../support/bags';
import { pollUntil, pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

/** What the PresQT web client (presqt-ui) sends: see the README, "Using the existing PresQT web client". */
const SOURCE = { 'presqt-source-token': 'alice-token' };
const DESTINATION = { 'presqt-destination-token': 'alice-token' };
const BOTH = { ...SOURCE, ...DESTINATION };
/** axios 0.19 sends a PATCH with a null body as an empty form */
const EMPTY_FORM = 'application/x-www-form-urlencoded';
/** The path and query of one of our absolute URLs, for supertest. */
const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
const partners = (names: string[]) => ({ transfer_in: names, transfer_out: names });

function testTargets(): string {
  const root = mkdtempSync(join(tmpdir(), 'presqt-compat-'));
  const many: Record<string, Buffer> = {};
  // big enough that a cancel sent after its first file lands while the job runs
  for (let i = 0; i < 30; i++) many[`alice/Many/f${i}.bin`] = randomBytes(4 << 20);
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

  beforeAll(async () => {
    stack = await startStack({
      env: { TARGETS_FILE: testTargets(), ANNOUNCEMENT: ' Maintenance tonight. ' },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
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
    const written = await http.get(pathOf(transferred.body.link_to_resource)).set(SOURCE).expect(200);
    expect(written.body.title).toBe('Ocean Survey');
  });

  it('cancels a transfer at job_status/transfers/ with an empty form body, as the client sends it', async () => {
    await startTransfer('Many', 'no').expect(202);
    const pending = await pollUntil(stack.baseUrl, '/api_v1/job_status/transfer/', BOTH, (body) => {
      return Number(body.files_finished) > 0;
    });
    expect(typeof pending.message).toBe('string');
    const cancelled = await http
      .patch('/api_v1/job_status/transfers/')
      .set({ ...BOTH, 'content-type': EMPTY_FORM })
      .send('')
      .expect(200);
    expect(cancelled.body).toEqual({ status_code: '499', message: 'Transfer was cancelled by the user.' });
    const polled = await http.get('/api_v1/job_status/transfer/').set(BOTH).expect(500);
    expect(polled.body).toMatchObject({ status_code: '499', message: 'Transfer was cancelled by the user.' });
  });

  it('answers JSON on every error of both download status variants, and a string message while pending', async () => {
    for (const variant of ['download.zip', 'download.json']) {
      const noToken = await http.get(`/api_v1/job_status/${variant}/`).expect(400);
      expect(noToken.type).toBe('application/json');
      const noJob = await http.get(`/api_v1/job_status/${variant}/`).set(SOURCE).expect(404);
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
        message: 'Download was cancelled by the user.',
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
