import { mkdtempSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { SETTLED_MS } from '@app/connectors/filesystem/project-names';
import { makeBagZip } from '../support/bags';
import { filesystemEntry, fsId, touch, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const UPLOAD = {
  'presqt-destination-token': 'alice-token',
  'presqt-file-duplicate-action': 'ignore',
  'presqt-email-opt-in': '',
};

/**
 * The API keeps the names in a user's folder between listings while a stat shows the folder unchanged
 * (libs/connectors/src/filesystem/project-names.ts): a project the worker makes or changes, or one changed
 * on disk, shows in the very next listing.
 */
describe('listings after changes to a folder whose names the API keeps (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let alice: string;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-kept-'));
    alice = join(root, 'alice');
    writeTree(alice, { 'Older/a.txt': 'a', 'Newer/b.txt': 'b' });
    touch(join(alice, 'Older'), 20);
    touch(join(alice, 'Newer'), 10);
    stack = await startStack({ env: { TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root)]) } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** Waits until alice's folder changed long enough ago for the API to keep its names, then lists it. */
  async function listSettled(): Promise<string[]> {
    const { mtimeMs, ctimeMs } = statSync(alice);
    const wait = Math.max(mtimeMs, ctimeMs) + SETTLED_MS + 50 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return titles();
  }

  async function titles(): Promise<string[]> {
    const res = await http.get('/api_v1/targets/fs/resources/').set(ALICE).expect(200);
    return res.body.resources.map((resource: { title: string }) => resource.title);
  }

  async function upload(into: string, files: Record<string, string>): Promise<void> {
    const zip = await makeBagZip({ files });
    await http.post(into).set(UPLOAD).attach('presqt-file', zip, 'package.zip').expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', {
      'presqt-destination-token': 'alice-token',
    });
    expect(done.body.status).toBe('finished');
  }

  it('shows a project the worker made, and one it wrote into, at once', async () => {
    expect(await listSettled()).toEqual(['Newer', 'Older']);
    expect(await titles()).toEqual(['Newer', 'Older']);

    // a new project: data/ holds its one folder
    await upload('/api_v1/targets/fs/resources/', { 'Uploaded/c.txt': 'c' });
    expect(await titles()).toEqual(['Uploaded', 'Newer', 'Older']);

    expect(await listSettled()).toEqual(['Uploaded', 'Newer', 'Older']);
    await upload(`/api_v1/targets/fs/resources/${fsId('Older')}/`, { 'c.txt': 'c' });
    expect(await titles()).toEqual(['Older', 'Uploaded', 'Newer']);
  });

  it('shows a project renamed on disk at once', async () => {
    expect(await listSettled()).toEqual(['Older', 'Uploaded', 'Newer']);

    renameSync(join(alice, 'Newer'), join(alice, 'Renamed'));
    expect(await titles()).toEqual(['Older', 'Uploaded', 'Renamed']);
  });
});
