import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeBagZip } from '../support/bags';
import { fsId, partneredEntries, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const TOKENS = { 'presqt-source-token': 'alice-token', 'presqt-destination-token': 'alice-token' };
const UPLOAD = {
  'presqt-destination-token': 'alice-token',
  'presqt-file-duplicate-action': 'ignore',
  'presqt-email-opt-in': '',
};
/** `levels` folders deep, then a file: `d/d/.../d/f.txt` */
const deep = (levels: number) => `${'d/'.repeat(levels)}f.txt`;

/** Trees too deep or paths too long for a target are refused before anything is written there. */
describe('path depth and length limits (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let destinationRoot: string;

  beforeAll(async () => {
    const sourceRoot = mkdtempSync(join(tmpdir(), 'presqt-deep-src-'));
    destinationRoot = mkdtempSync(join(tmpdir(), 'presqt-deep-dst-'));
    // 70 levels: past the default limit of 64, well within what a filesystem holds
    writeTree(sourceRoot, { [`alice/Deep/${deep(70)}`]: 'far down', 'alice/Shallow/a.txt': 'a' });
    writeTree(destinationRoot, { 'alice/Existing/keep.txt': 'keep' });
    const targetsFile = writeTargetsFile(partneredEntries(sourceRoot, destinationRoot));
    stack = await startStack({ env: { TARGETS_FILE: targetsFile } });
    http = request(stack.baseUrl);
  });

  afterAll(() => stack?.stop());

  const upload = async (files: Record<string, string>) =>
    http
      .post('/api_v1/targets/dst/resources/')
      .set(UPLOAD)
      .attach('presqt-file', await makeBagZip({ files }), 'package.zip');

  it('refuses an upload of a 5,000-level tree with 400 before the 202', async () => {
    const answer = await upload({ [`Tall/${deep(5000)}`]: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(
      /^PresQT Error: the package holds a path the target cannot hold: 'Tall\/d\/d\/.*…' is 5002 levels deep, deeper than the 64 allowed \(MAX_PATH_DEPTH\)\.$/,
    );
  });

  it('refuses an upload of a path longer than the limit, however shallow', async () => {
    const name = 'n'.repeat(200);
    const answer = await upload({ [`Long/${`${name}/`.repeat(6)}f.txt`]: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(
      /is 1216 bytes long, longer than the 1024 allowed \(MAX_PATH_BYTES\)\.$/,
    );
  });

  it('fails a transfer of a too-deep tree before it writes anything at the destination', async () => {
    await http
      .post('/api_v1/targets/dst/resources/')
      .set({
        ...TOKENS,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
      })
      .send({ source_target_name: 'src', source_resource_id: fsId('Deep'), keywords: [] })
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS);
    expect(done.body).toMatchObject({
      status: 'failed',
      status_code: 400,
      // the first folder past the limit fails it, before its files are reached
      message: expect.stringMatching(
        /'Deep\/d\/d.*…' is 65 levels deep, deeper than the 64 allowed \(MAX_PATH_DEPTH\)/,
      ),
    });
    expect(readdirSync(join(destinationRoot, 'alice')).sort()).toEqual(['Existing']);
  });
});
