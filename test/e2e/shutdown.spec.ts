import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { fsId, treeDigests, writeTargetsFile, writeTree, partneredEntries } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startApp, startStack, waitForOutput, type RunningProcess, type Stack } from '../support/stack';

const TOKENS = { 'presqt-source-token': 'alice-token', 'presqt-destination-token': 'alice-token' };
const FILES = 40;
const FILE_BYTES = 8 << 20;
/** far longer than the hand-over may take: a job taken over only after its lock lapsed would fail the test */
const JOB_LOCK_MS = 30_000;
/** the second worker's start-up included */
const HANDOVER_WITHIN_MS = 10_000;

/** SIGTERM to a worker running a transfer: the job goes to another worker at once and finishes whole. */
describe('graceful shutdown of a worker (real API, workers and Redis)', () => {
  let stack: Stack;
  let source: string;
  let destination: string;
  let second: RunningProcess;

  beforeAll(async () => {
    source = mkdtempSync(join(tmpdir(), 'presqt-shutdown-src-'));
    destination = mkdtempSync(join(tmpdir(), 'presqt-shutdown-dst-'));
    const bytes = randomBytes(FILE_BYTES);
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < FILES; i++)
      files[`alice/Data/part-${String(i).padStart(2, '0')}.bin`] = Buffer.concat([Buffer.from([i]), bytes]);
    writeTree(source, files);
    stack = await startStack({
      env: {
        TARGETS_FILE: writeTargetsFile(partneredEntries(source, destination)),
        JOB_LOCK_MS: String(JOB_LOCK_MS),
        FILE_TRANSFERS: '1',
      },
    });
  });

  afterAll(async () => {
    second?.child.kill('SIGKILL');
    await stack?.stop();
    for (const dir of [source, destination]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('hands its running job back, and another worker resumes it within seconds', async () => {
    await request(stack.baseUrl)
      .post('/api_v1/targets/dst/resources/')
      .set({
        ...TOKENS,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-keyword-action': 'none',
        'presqt-email-opt-in': '',
      })
      .send({ source_target_name: 'src', source_resource_id: fsId('Data'), keywords: [] })
      .expect(202);
    await waitForOutput(stack.worker!, /running transfer job/);
    // stopped at once, with seconds of copying left: the second worker, started meanwhile, is the only one
    // that can take the job back up (the first no longer takes jobs)
    stack.worker!.child.kill('SIGTERM');
    const stoppedAt = Date.now();
    second = startApp('worker', stack.env);
    await waitForOutput(second, /running transfer job/, HANDOVER_WITHIN_MS);
    const handoverMs = Date.now() - stoppedAt;
    expect(await stack.worker!.exited).toBe(0);
    expect(stack.worker!.output()).toMatch(/handing back 1 running job/);

    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/transfer/', TOKENS, 120_000);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ files_finished: FILES, failed_fixity: [], resources_ignored: [] });
    const { 'PRESQT_FTS_METADATA.json': _metadata, ...copied } = treeDigests(
      join(destination, 'alice', 'Data'),
    );
    expect(copied).toEqual(treeDigests(join(source, 'alice', 'Data')));
    expect(handoverMs).toBeLessThan(HANDOVER_WITHIN_MS);
  });
});
