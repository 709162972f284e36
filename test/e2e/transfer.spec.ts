import { SEPARATE_SOURCE_DIGEST_FROM } from '@app/fixity';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ALL_ACTIONS, filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const TOKENS = { 'presqt-source-token': 'alice-token', 'presqt-destination-token': 'alice-token' };
const HEADERS = {
  ...TOKENS,
  'presqt-file-duplicate-action': 'ignore',
  'presqt-keyword-action': 'manual',
  'presqt-email-opt-in': '',
};
const partners = (names: string[]) => ({ transfer_in: names, transfer_out: names });

describe('transfers (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let sourceRoot: string;
  let destinationRoot: string;
  // over SEPARATE_SOURCE_DIGEST_FROM and not a whole number of 1 MiB chunks: copied by both hashing threads at once
  const big = randomBytes(SEPARATE_SOURCE_DIGEST_FROM + (1 << 20) + 5);

  beforeAll(async () => {
    sourceRoot = mkdtempSync(join(tmpdir(), 'presqt-src-'));
    destinationRoot = mkdtempSync(join(tmpdir(), 'presqt-dst-'));
    const many: Record<string, Buffer> = {};
    // big enough that a cancel sent after its first file always lands while it runs
    for (let i = 0; i < 40; i++) many[`alice/Many/f${i}.bin`] = randomBytes(4 << 20);
    writeTree(sourceRoot, {
      'alice/Survey/README.md': '# Survey\n',
      'alice/Survey/data/big.bin': big,
      'alice/Survey/data/empty.txt': '',
      'alice/Survey/.presqt-keywords.json': JSON.stringify(['Ornithology']),
      'alice/Survey/PRESQT_FTS_METADATA.json': JSON.stringify({ allKeywords: ['Wetlands'], actions: [] }),
      ...many,
    });
    writeTree(destinationRoot, { 'alice/Existing/keep.txt': 'keep' });
    const targetsFile = writeTargetsFile([
      filesystemEntry('src', sourceRoot, { supported_transfer_partners: partners(['dst', 'closed']) }),
      filesystemEntry('dst', destinationRoot, { supported_transfer_partners: partners(['src']) }),
      filesystemEntry('closed', destinationRoot, {
        supported_actions: { ...ALL_ACTIONS, resource_transfer_in: false, resource_transfer_out: false },
        supported_transfer_partners: partners(['src']),
      }),
      filesystemEntry('loner', destinationRoot),
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const transfer = (path: string, headers: Record<string, string>, body: unknown) =>
    http
      .post(path)
      .set(headers)
      .send(body as object);

  it('transfers a project as a new project, carrying keywords and writing nothing to the source', async () => {
    const start = await transfer('/api_v1/targets/dst/resources/', HEADERS, {
      source_target_name: 'src',
      source_resource_id: fsId('Survey'),
      keywords: ['Field Work'],
    }).expect(202);
    expect(start.body).toEqual({
      message: 'The server is processing the request.',
      transfer_job: `${stack.baseUrl}/api_v1/job_status/transfer/`,
    });
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'finished',
      status_code: '200',
      job_percentage: 100,
      failed_fixity: [],
      resources_ignored: [],
      resources_updated: [],
      source_resource_id: fsId('Survey'),
      destination_resource_id: fsId('Survey'),
      initial_keywords: ['ornithology', 'wetlands'],
      enhanced_keywords: ['field work'],
      message: 'Transfer successful.',
      files_total: 4,
      files_finished: 4,
    });
    const project = join(destinationRoot, 'alice', 'Survey');
    expect(readFileSync(join(project, 'data', 'big.bin')).equals(big)).toBe(true);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Survey\n');
    expect(readFileSync(join(project, 'data', 'empty.txt'), 'utf8')).toBe('');
    expect(JSON.parse(readFileSync(join(project, '.presqt-keywords.json'), 'utf8'))).toEqual([
      'ornithology',
      'wetlands',
      'field work',
    ]);
    const metadata = JSON.parse(readFileSync(join(project, 'PRESQT_FTS_METADATA.json'), 'utf8'));
    expect(metadata.allKeywords).toEqual(expect.arrayContaining(['wetlands', 'field work']));
    expect(metadata.actions[0]).toMatchObject({
      actionType: 'resource_transfer_in',
      sourceTargetName: 'src',
    });
    expect(metadata.actions[0].files.created).toHaveLength(3);
    // the source keeps its own metadata file untouched
    expect(
      JSON.parse(readFileSync(join(sourceRoot, 'alice', 'Survey', 'PRESQT_FTS_METADATA.json'), 'utf8')),
    ).toEqual({
      allKeywords: ['Wetlands'],
      actions: [],
    });
    await http.patch('/api_v1/job_status/transfer/').set(TOKENS).expect(406);
  });

  it('transfers into an existing container, ignoring or updating duplicates as asked', async () => {
    const body = { source_target_name: 'src', source_resource_id: fsId('Survey/data'), keywords: [] };
    const none = { ...HEADERS, 'presqt-keyword-action': 'none' };
    const into = `/api_v1/targets/dst/resources/${fsId('Existing')}/`;
    await transfer(into, none, body).expect(202);
    expect((await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS)).body).toMatchObject({
      resources_ignored: [],
      initial_keywords: [],
      enhanced_keywords: [],
    });
    expect(existsSync(join(destinationRoot, 'alice', 'Existing', 'data', 'big.bin'))).toBe(true);
    expect(existsSync(join(destinationRoot, 'alice', 'Existing', '.presqt-keywords.json'))).toBe(false);

    await transfer(into, none, body).expect(202);
    const again = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS);
    expect(again.body.resources_ignored.sort()).toEqual(['/data/big.bin', '/data/empty.txt']);

    writeFileSync(
      join(destinationRoot, 'alice', 'Existing', 'data', 'empty.txt'),
      'changed at the destination',
    );
    await transfer(into, { ...none, 'presqt-file-duplicate-action': 'update' }, body).expect(202);
    const updated = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS);
    expect(updated.body.resources_updated).toEqual(['/data/empty.txt']);
    expect(updated.body.resources_ignored).toEqual(['/data/big.bin']);
    expect(readFileSync(join(destinationRoot, 'alice', 'Existing', 'data', 'empty.txt'), 'utf8')).toBe('');
  });

  it('answers every start error before the 202', async () => {
    const body = { source_target_name: 'src', source_resource_id: fsId('Survey'), keywords: [] };
    const without = (name: string) =>
      Object.fromEntries(Object.entries(HEADERS).filter(([key]) => key !== name));
    const cases: Array<[string, Record<string, string>, unknown, number, string]> = [
      [
        '/api_v1/targets/dst/resources/',
        without('presqt-destination-token'),
        body,
        400,
        "'presqt-destination-token' missing",
      ],
      [
        '/api_v1/targets/dst/resources/',
        without('presqt-source-token'),
        body,
        400,
        "'presqt-source-token' missing",
      ],
      [
        '/api_v1/targets/dst/resources/',
        without('presqt-file-duplicate-action'),
        body,
        400,
        "'presqt-file-duplicate-action' missing",
      ],
      [
        '/api_v1/targets/dst/resources/',
        { ...HEADERS, 'presqt-file-duplicate-action': 'x' },
        body,
        400,
        "'x' is not a valid file_duplicate_action",
      ],
      [
        '/api_v1/targets/dst/resources/',
        without('presqt-keyword-action'),
        body,
        400,
        "'presqt-keyword-action' missing",
      ],
      [
        '/api_v1/targets/dst/resources/',
        { ...HEADERS, 'presqt-keyword-action': 'all' },
        body,
        400,
        "'all' is not a valid keyword_action",
      ],
      [
        '/api_v1/targets/dst/resources/',
        without('presqt-email-opt-in'),
        body,
        400,
        "'presqt-email-opt-in' missing",
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_target_name: undefined },
        400,
        'source_target_name was not found',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_resource_id: undefined },
        400,
        'source_resource_id was not found',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_resource_id: '' },
        400,
        "source_resource_id can't be None or blank",
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_resource_id: null },
        400,
        'source_resource_id',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, keywords: undefined },
        400,
        'keywords was not found',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, keywords: 'x' },
        400,
        "'keywords' must be in list format",
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, keywords: ['ok', 7] },
        400,
        "'keywords' must be a list of strings",
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, colour: 'red' },
        400,
        "'colour' is not a body field",
      ],
      ['/api_v1/targets/nowhere/resources/', HEADERS, body, 404, "'nowhere' is not a valid Target name"],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_target_name: 'nope' },
        404,
        "'nope' is not a valid Target name",
      ],
      [
        '/api_v1/targets/closed/resources/',
        HEADERS,
        body,
        400,
        "'closed' does not support the action 'resource_transfer_in'",
      ],
      [
        '/api_v1/targets/src/resources/',
        HEADERS,
        { ...body, source_target_name: 'closed' },
        400,
        "'closed' does not support the action 'resource_transfer_out'",
      ],
      ['/api_v1/targets/loner/resources/', HEADERS, body, 400, "'src' does not allow transfer to 'loner'"],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_target_name: 'loner' },
        400,
        "'loner' does not allow transfer to 'dst'",
      ],
      [
        '/api_v1/targets/dst/resources/',
        { ...HEADERS, 'presqt-source-token': 'bad' },
        body,
        401,
        'Token is invalid',
      ],
      [
        '/api_v1/targets/dst/resources/',
        { ...HEADERS, 'presqt-destination-token': 'bad' },
        body,
        401,
        'Token is invalid',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_resource_id: fsId('Nope') },
        404,
        'not found for this user',
      ],
      [`/api_v1/targets/dst/resources/${fsId('Nope')}/`, HEADERS, body, 404, 'not found for this user'],
      [
        `/api_v1/targets/dst/resources/${fsId('Existing/keep.txt')}/`,
        HEADERS,
        body,
        400,
        'is not a container',
      ],
      [
        '/api_v1/targets/dst/resources/',
        HEADERS,
        { ...body, source_resource_id: fsId('Survey/README.md') },
        400,
        'single file can not be uploaded as a new project',
      ],
    ];
    for (const [path, headers, payload, status, message] of cases) {
      const res = await transfer(path, headers, payload);
      expect({ path, payload, status: res.status, error: res.body.error }).toEqual({
        path,
        payload,
        status,
        error: expect.stringContaining(message),
      });
    }
  });

  it('answers a body that is not valid JSON with 400 naming the problem', async () => {
    const res = await http
      .post('/api_v1/targets/dst/resources/')
      .set({ ...HEADERS, 'content-type': 'application/json' })
      .send('{"source_target_name": ')
      .expect(400);
    expect(res.body.error).toMatch(/^PresQT Error: the request could not be read: .*valid JSON body/);
  });

  it('refuses a second transfer while one runs, and cancels it on request', async () => {
    const body = { source_target_name: 'src', source_resource_id: fsId('Many'), keywords: [] };
    await transfer('/api_v1/targets/dst/resources/', HEADERS, body).expect(202);
    const second = await transfer('/api_v1/targets/dst/resources/', HEADERS, body).expect(400);
    expect(second.body).toEqual({ error: 'User currently has processes in progress.' });
    // cancelled at once: a transfer of 160 MiB between two disks can finish within a few polls
    await http.get('/api_v1/job_status/transfer/').set(TOKENS).expect(202);
    const cancelled = await http.patch('/api_v1/job_status/transfer/').set(TOKENS).expect(200);
    expect(cancelled.body).toEqual({ status_code: '499', message: 'Transfer was cancelled by the user' });
    const status = await http.get('/api_v1/job_status/transfer/').set(TOKENS).expect(500);
    expect(status.body).toMatchObject({ status: 'cancelled', status_code: '499' });
    await http.get('/api_v1/job_status/transfer/').set({ 'presqt-source-token': 'alice-token' }).expect(400);
  });
});
