import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

const APP_ORIGIN = 'https://app.example.org';
const USERS = ['alice', 'bob', 'carol'];
const tokenOf = (user: string) => ({ 'presqt-source-token': `${user}-token` });

/** Rate limits (on here, off elsewhere in the tests), security headers that Swagger UI works under, and CORS. */
describe('abuse limits and browser access (real API and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'presqt-limits-'));
    writeTree(root, Object.fromEntries(USERS.map((user) => [`${user}/Study/notes.txt`, 'field notes\n'])));
    const tokens = Object.fromEntries(USERS.map((user) => [`${user}-token`, user]));
    stack = await startStack({
      worker: false,
      env: {
        TARGETS_FILE: writeTargetsFile([filesystemEntry('fs', root, { options: { root, tokens } })]),
        RATE_LIMITS: 'on',
        RATE_LIMIT_LISTINGS: '3',
        RATE_LIMIT_LISTINGS_PER_ADDRESS: '5',
        RATE_LIMIT_JOB_STARTS: '2',
        CORS_ORIGINS: `${APP_ORIGIN}, https://other.example.org`,
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(() => stack?.stop());

  const list = (user: string) => http.get('/api_v1/targets/fs/resources/').set(tokenOf(user));

  const expectLimited = (response: request.Response) => {
    expect(response.status).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(response.body).toEqual({ error: expect.stringContaining('too many requests') });
  };

  it('limits listings per token and per address, answering 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) await list('alice').expect(200);
    expectLimited(await list('alice'));
    // another token from the same address has its own count, until the address's limit (5) is reached
    await list('bob').expect(200);
    await list('bob').expect(200);
    expectLimited(await list('bob'));
    // a resource's detail is not a listing
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.json`)
      .set(tokenOf('alice'))
      .expect(200);
  });

  it('limits nothing with RATE_LIMITS=off', async () => {
    const unlimited = await startStack({
      worker: false,
      env: { TARGETS_FILE: stack.env.TARGETS_FILE, RATE_LIMITS: 'off', RATE_LIMIT_LISTINGS: '1' },
    });
    try {
      for (let i = 0; i < 3; i++)
        await request(unlimited.baseUrl)
          .get('/api_v1/targets/fs/resources/')
          .set(tokenOf('alice'))
          .expect(200);
    } finally {
      await unlimited.stop();
    }
  });

  it('limits job starts per token', async () => {
    const start = () =>
      http
        .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
        .set({ ...tokenOf('carol'), 'presqt-email-opt-in': '' });
    await start().expect(202);
    await start().expect(400); // one download per user at a time: still a start asked for
    expectLimited(await start());
  });

  it('answers a CORS preflight with the presqt headers before routing, for any path', async () => {
    for (const path of ['/api_v1/targets/fs/resources/', '/no/such/route']) {
      const preflight = await http
        .options(path)
        .set({
          Origin: APP_ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'presqt-source-token,presqt-destination-token,content-type',
        })
        .expect(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(preflight.headers['access-control-allow-methods']).toBe('GET,POST,PATCH,DELETE');
      expect(preflight.headers['access-control-allow-headers']).toEqual(
        expect.stringContaining('presqt-source-token'),
      );
      expect(preflight.headers['access-control-allow-headers']).toEqual(
        expect.stringContaining('presqt-destination-token'),
      );
    }
    const answer = await http.get('/api_v1/targets/').set('Origin', APP_ORIGIN).expect(200);
    expect(answer.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(answer.headers['access-control-expose-headers']).toContain('Content-Disposition');
    const stranger = await http.get('/api_v1/targets/').set('Origin', 'https://evil.example.com').expect(200);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends security headers under which Swagger UI and its assets load', async () => {
    const page = await http.get('/api/docs/').expect(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // the policy allows no inline script: every script of the page is a file of this origin
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const response = await http.get(new URL(asset, `${stack.baseUrl}/api/docs/`).pathname).expect(200);
      expect(response.headers['content-type']).toMatch(/javascript|css/);
    }
  });
});
