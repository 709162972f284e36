import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type RunningProcess, type Stack } from '../support/stack';

const TOKEN = 'alice-secret-token-0f3c';
const AUTHORIZATION = 'Bearer admin-secret-9e2d';
const REQUEST_ID = 'trace-42.abc';

/** Every line a process printed, parsed: each must be one JSON object. */
function logLines(proc: RunningProcess): Record<string, unknown>[] {
  return proc
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** JSON logs of the API and the worker: one request id from the request to its job, and no token. */
describe('logs (real API, worker and Redis)', () => {
  let stack: Stack;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-logs-'));
    writeTree(root, { 'alice/Study/notes.txt': 'field notes\n' });
    const entry = filesystemEntry('fs', root, { options: { root, tokens: { [TOKEN]: 'alice' } } });
    stack = await startStack({ env: { TARGETS_FILE: writeTargetsFile([entry]), LOG_LEVEL: 'debug' } });
  });

  afterAll(() => stack?.stop());

  it("carry a request's id into the job it starts and every worker line of that job, with no token", async () => {
    const headers = { 'presqt-source-token': TOKEN };
    const started = await request(stack.baseUrl)
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set({
        ...headers,
        'presqt-email-opt-in': '',
        'X-Request-Id': REQUEST_ID,
        Authorization: AUTHORIZATION,
      })
      .expect(202);
    expect(started.headers['x-request-id']).toBe(REQUEST_ID);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', headers);
    expect(done.body.status).toBe('finished');

    const apiLine = logLines(stack.api).find((line) => line.requestId === REQUEST_ID);
    expect(apiLine).toMatchObject({
      process: 'api',
      req: { method: 'GET', url: `/api_v1/targets/fs/resources/${fsId('Study')}.zip/` },
      res: { statusCode: 202 },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    const workerLines = logLines(stack.worker!).filter((line) => line.requestId === REQUEST_ID);
    expect(workerLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^running download job/)]),
    );
    // every line of the job carries the id, not only the first
    const jobLines = logLines(stack.worker!).filter((line) => String(line.msg).includes(' job '));
    expect(jobLines.every((line) => line.requestId === REQUEST_ID)).toBe(true);

    for (const proc of [stack.api, stack.worker!]) {
      expect(proc.output()).not.toContain(TOKEN);
      expect(proc.output()).not.toContain('admin-secret');
    }
  });

  it('makes its own id for a request whose X-Request-Id is not a short token', async () => {
    for (const unfit of ['x" forged', 'a'.repeat(65), '']) {
      const response = await request(stack.baseUrl).get('/api_v1/targets/').set('X-Request-Id', unfit);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
      expect(logLines(stack.api).some((line) => line.requestId === unfit)).toBe(false);
    }
  });
});
