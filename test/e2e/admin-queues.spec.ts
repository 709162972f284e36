import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

const ADMIN_TOKEN = 'admin-token-for-the-queue-board';
const USER_TOKEN = 'alice-queue-board-token';

/** Bull Board at /admin/queues: refused without ADMIN_TOKEN, served with it, showing no token or email. */
describe('queue dashboard (real API and Redis)', () => {
  let stack: Stack;
  let withDashboard: Stack;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-admin-'));
    writeTree(root, { 'alice/Study/notes.txt': 'field notes\n' });
    const entry = filesystemEntry('fs', root, { options: { root, tokens: { [USER_TOKEN]: 'alice' } } });
    const targetsFile = writeTargetsFile([entry]);
    // no worker: the job stays waiting in its queue, where the dashboard shows it
    [stack, withDashboard] = await Promise.all([
      startStack({ worker: false, env: { TARGETS_FILE: targetsFile } }),
      startStack({ worker: false, env: { TARGETS_FILE: targetsFile, ADMIN_TOKEN } }),
    ]);
    await request(withDashboard.baseUrl)
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set({ 'presqt-source-token': USER_TOKEN, 'presqt-email-opt-in': 'alice@example.org' })
      .expect(202);
  });

  afterAll(() => Promise.all([stack?.stop(), withDashboard?.stop()]));

  it('is not there without ADMIN_TOKEN', async () => {
    const response = await request(stack.baseUrl).get('/admin/queues').expect(404);
    expect(response.body).toEqual({ error: expect.stringContaining('no endpoint') });
  });

  it('refuses requests without the admin token, asking a browser for it', async () => {
    const refused = [
      undefined,
      'Bearer wrong-token',
      `Basic ${btoa('admin:wrong')}`,
      // the right token with more after it is not the right credential
      `Bearer ${ADMIN_TOKEN} extra`,
      `Basic ${btoa(`admin:${ADMIN_TOKEN}`)} extra`,
    ];
    for (const authorization of refused) {
      const call = request(withDashboard.baseUrl).get('/admin/queues/api/queues');
      const response = await (authorization ? call.set('Authorization', authorization) : call).expect(401);
      expect(response.headers['www-authenticate']).toMatch(/^Basic /);
      expect(response.body).toEqual({ error: expect.stringContaining('admin token') });
    }
  });

  it("counts the dashboard's requests under its mount, however clients spell it", async () => {
    const http = request(withDashboard.baseUrl);
    // Express matches the mount case-insensitively: each spelling reaches the dashboard (and its 401)
    const spelling = (n: number) =>
      [...'/admin/queues/api/queues'].map((c, i) => ((n >> (i % 20)) & 1 ? c.toUpperCase() : c)).join('');
    const ask = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        await http.get(spelling(n)).expect(401);
        await http.get(spelling(n)).set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
      }
    };
    const series = async () => {
      const text = (await http.get('/metrics').expect(200)).text;
      const lines = text.split('\n').filter((line) => line.startsWith('presqt_http_request'));
      const routes = new Set(lines.map((line) => /route="([^"]*)"/.exec(line)?.[1]));
      return { lines: lines.length, routes: [...routes] };
    };
    await ask(0, 20);
    await series(); // the /metrics route's own series
    const before = await series();
    await ask(20, 220);
    const after = await series();
    expect(after.lines).toBe(before.lines);
    const dashboard = after.routes.filter((route) => /admin\/queues/i.test(route ?? ''));
    expect(dashboard.length).toBeGreaterThan(0);
    for (const route of dashboard) expect(route).toMatch(/^\/admin\/queues\//);
  });

  it('serves the dashboard with the token, as a Bearer token or a Basic password', async () => {
    const page = await request(withDashboard.baseUrl)
      .get('/admin/queues')
      .set('Authorization', `Basic ${btoa(`anyone:${ADMIN_TOKEN}`)}`)
      .expect(200);
    expect(page.text).toContain('PresQT queues');
    const api = await request(withDashboard.baseUrl)
      .get('/admin/queues/api/queues?activeQueue=download&status=waiting')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    const download = (api.body.queues as { name: string; jobs: { data: Record<string, unknown> }[] }[]).find(
      (queue) => queue.name === 'download',
    )!;
    expect(download.jobs).toHaveLength(1);
    expect(download.jobs[0].data).toMatchObject({
      targetName: 'fs',
      sourceToken: '[hidden]',
      email: '[set]',
    });
    expect(api.text).not.toContain(USER_TOKEN);
    expect(api.text).not.toContain('alice@example.org');
  });
});
