import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { binaryParser, pollUntilDone, verifyBagZip } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const LOCATION = '/presqt-job-files';

/**
 * JOB_FILES_ACCEL_REDIRECT: a reverse proxy (nginx) serves DATA_DIR/jobs at an internal location, and the API
 * answers a zip download with the path of the zip there instead of sending it (docs/serving-downloads.md).
 */
describe('downloads served by a reverse proxy (X-Accel-Redirect)', () => {
  let stack: Stack;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-accel-'));
    writeTree(root, { 'alice/Study/notes.txt': 'field notes\n' });
    const targetsFile = writeTargetsFile([filesystemEntry('fs', root)]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, JOB_FILES_ACCEL_REDIRECT: LOCATION } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("answers download.zip with the zip's path under the proxy's location, and no body", async () => {
    const http = request(stack.baseUrl);
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set({ ...ALICE, 'presqt-email-opt-in': '' })
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', ALICE);
    const zipName = String(done.body.zip_name);

    const answer = await http
      .get('/api_v1/job_status/download.zip/')
      .set(ALICE)
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    expect(answer.headers['content-type']).toBe('application/zip');
    expect(answer.headers['content-disposition']).toContain(`filename="${zipName}"`);
    expect((answer.body as Buffer).length).toBe(0);
    const redirect = String(answer.headers['x-accel-redirect']);
    expect(redirect).toMatch(
      new RegExp(`^${LOCATION}/download/[0-9a-f]{64}/[0-9a-f-]{36}/${zipName.replace('.', '\\.')}$`),
    );
    // what the proxy's location maps to: the zip itself, in DATA_DIR/jobs
    const file = join(stack.dataDir, 'jobs', redirect.slice(LOCATION.length + 1));
    expect(existsSync(file)).toBe(true);
    verifyBagZip(file, zipName.replace(/\.zip$/, ''));

    // the checks come first: an unknown ticket is still a 404
    await http.get('/api_v1/job_status/download.zip/').set({ 'presqt-source-token': 'nobody' }).expect(404);
  });
});
