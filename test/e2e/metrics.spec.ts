import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startApp, startStack, waitForOutput, workerHealthUrl, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const BOB = { 'presqt-source-token': 'bob-token' };
const NO_EMAIL = { 'presqt-email-opt-in': '' };

/** The value of one sample in Prometheus text, or undefined when it is not there. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const present = match[2].split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

/** Prometheus metrics of the API and the worker after one finished and one failed download. */
describe('metrics (real API, worker and Redis)', () => {
  let stack: Stack;
  let root: string;
  let worker: ReturnType<typeof startApp>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'presqt-metrics-'));
    writeTree(root, { 'alice/Study/notes.txt': 'field notes\n', 'bob/Gone/a.txt': 'soon removed' });
    const targetsFile = writeTargetsFile([filesystemEntry('fs', root)]);
    stack = await startStack({ worker: false, env: { TARGETS_FILE: targetsFile } });
    // both accepted before any worker runs: Bob's project goes before a worker can read it, so his job fails
    const http = request(stack.baseUrl);
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set({ ...ALICE, ...NO_EMAIL })
      .expect(202);
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Gone')}.zip/`)
      .set({ ...BOB, ...NO_EMAIL })
      .expect(202);
    rmSync(join(root, 'bob', 'Gone'), { recursive: true });
    worker = startApp('worker', stack.env);
    await waitForOutput(worker, /Worker ready/);
    const ended = await Promise.all(
      [ALICE, BOB].map((token) => pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', token)),
    );
    expect(ended.map((response) => response.body.status)).toEqual(['finished', 'failed']);
  });

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await stack?.stop();
  });

  it('count the jobs the API accepted and the requests by route pattern, never by raw path', async () => {
    const text = (await request(stack.baseUrl).get('/metrics').expect(200)).text;
    expect(sample(text, 'presqt_jobs_started_total', { kind: 'download', target: 'fs' })).toBe(2);
    const route = '/api_v1/targets/:targetName/resources/:resource';
    const pattern = sample(text, 'presqt_http_requests_total', { method: 'GET', route, status: '202' });
    expect(pattern).toBe(2);
    expect(text).not.toContain(fsId('Study'));
    expect(text).not.toMatch(/alice|bob-token/);
    expect(text).toContain('process_resident_memory_bytes');
  });

  it("count the worker's finished and failed jobs, their durations, what moved and the queues", async () => {
    const text = (
      await request(workerHealthUrl({ ...stack, worker }))
        .get('/metrics')
        .expect(200)
    ).text;
    const download = { kind: 'download', target: 'fs' };
    expect(sample(text, 'presqt_jobs_ended_total', { ...download, outcome: 'finished' })).toBe(1);
    expect(sample(text, 'presqt_jobs_ended_total', { ...download, outcome: 'failed' })).toBe(1);
    expect(sample(text, 'presqt_job_duration_seconds_count', { kind: 'download', outcome: 'failed' })).toBe(
      1,
    );
    expect(sample(text, 'presqt_job_files_moved_total', { kind: 'download' })).toBe(1);
    expect(sample(text, 'presqt_job_bytes_moved_total', { kind: 'download' })).toBe('field notes\n'.length);
    expect(sample(text, 'presqt_queue_jobs', { kind: 'download', state: 'waiting' })).toBe(0);
    expect(sample(text, 'presqt_jobs_running', { kind: 'download' })).toBe(0);
    expect(text).not.toMatch(/alice|bob-token/);
  });
});
