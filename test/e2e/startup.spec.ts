import { writeFileSync } from 'node:fs';
import request from 'supertest';
import { filesystemEntry, writeTargetsFile } from '../support/fs-fixtures';
import { startApp, startStack, SHIPPED_TARGETS_FILE, waitForOutput } from '../support/stack';

const baseEnv = () => ({
  REDIS_URL: process.env.PRESQT_TEST_REDIS_URL ?? '',
  DATA_DIR: '/tmp/presqt-startup-test',
});

describe('start-up and shutdown', () => {
  it.each([
    [
      'a missing required field',
      [{ ...filesystemEntry('fs', '/tmp/x'), readable_name: undefined }],
      "entry 0 ('fs'): field 'readable_name' is required",
    ],
    [
      'a wrongly typed action flag',
      [
        {
          ...filesystemEntry('fs', '/tmp/x'),
          supported_actions: { ...filesystemEntry('fs', '/tmp/x').supported_actions, keywords: 'yes' },
        },
      ],
      "entry 0 ('fs'): field 'supported_actions.keywords' must be boolean",
    ],
    [
      'an unknown connector',
      [{ ...filesystemEntry('fs', '/tmp/x'), connector: 'ftp' }],
      "entry 0 ('fs'): field 'connector' names 'ftp', which is not a known connector",
    ],
    [
      'bad connector options',
      [{ ...filesystemEntry('fs', '/tmp/x'), options: { tokens: {} } }],
      "entry 0 ('fs'): field 'options'",
    ],
    [
      'a partner that is not a target',
      [
        {
          ...filesystemEntry('fs', '/tmp/x'),
          supported_transfer_partners: { transfer_in: ['osf'], transfer_out: [] },
        },
      ],
      "names 'osf', which is not a target in this file",
    ],
    [
      'a repeated name',
      [filesystemEntry('fs', '/tmp/x'), filesystemEntry('fs', '/tmp/y')],
      "entry 1 ('fs'): field 'name' repeats",
    ],
    [
      'an unknown search filter',
      [{ ...filesystemEntry('fs', '/tmp/x'), search_parameters: ['colour'] }],
      "field 'search_parameters.0' must be one of",
    ],
    [
      'a search filter its connector does not take',
      [
        {
          ...filesystemEntry('cnd', '/tmp/x'),
          connector: 'curate_nd',
          options: {},
          search_parameters: ['title', 'author'],
          supported_actions: {
            ...filesystemEntry('cnd', '/tmp/x').supported_actions,
            resource_upload: false,
          },
        },
      ],
      "entry 0 ('cnd'): field 'search_parameters' lists 'author', which the curate_nd connector does not search by",
    ],
    [
      'an action its connector cannot do',
      [
        {
          ...filesystemEntry('cnd', '/tmp/x'),
          connector: 'curate_nd',
          options: {},
          search_parameters: ['title'],
        },
      ],
      "entry 0 ('cnd'): field 'supported_actions' turns on 'resource_upload', which needs what the curate_nd connector has not: write",
    ],
  ])(
    'refuses to start with a targets file with %s, naming entry and field',
    async (_case, entries, message) => {
      for (const app of ['api', 'worker'] as const) {
        const proc = startApp(app, { ...baseEnv(), TARGETS_FILE: writeTargetsFile(entries) });
        expect(await proc.exited).toBe(1);
        expect(proc.output()).toContain(message);
      }
    },
  );

  it('refuses a targets file that is not JSON, and a bad environment variable', async () => {
    const file = writeTargetsFile([]);
    writeFileSync(file, '[{"name": ');
    const notJson = startApp('api', { ...baseEnv(), TARGETS_FILE: file });
    expect(await notJson.exited).toBe(1);
    expect(notJson.output()).toContain('is not valid JSON');

    const badPort = startApp('api', { ...baseEnv(), PORT: 'eighty' });
    expect(await badPort.exited).toBe(1);
    expect(badPort.output()).toContain('PORT must be an integer');
  });

  it.each([
    [{ REDIS_SENTINELS: 'sentinel-1:26379' }, 'REDIS_SENTINEL_NAME must be the name the sentinels monitor'],
    [
      { REDIS_SENTINELS: 'sentinel-1', REDIS_SENTINEL_NAME: 'presqt' },
      'REDIS_SENTINELS must be a comma-separated list of host:port',
    ],
    [
      { REDIS_SENTINELS: 's1:26379,s2:99999', REDIS_SENTINEL_NAME: 'presqt' },
      "REDIS_SENTINELS must be a comma-separated list of host:port (ports 1 to 65535), such as sentinel-1:26379,sentinel-2:26379,sentinel-3:26379 (given: 's1:26379,s2:99999')",
    ],
    [
      { REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'presqt', REDIS_URL: 'redis://127.0.0.1:6379' },
      'set REDIS_URL (one Redis server) or REDIS_SENTINELS (Redis Sentinel), not both',
    ],
  ])('refuses Redis Sentinel configured as %j', async (env, message) => {
    const proc = startApp('api', { ...baseEnv(), REDIS_URL: '', ...env });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain(message);
  });

  it.each([
    [{ JOB_FILES: 's3' }, 'JOB_FILES_S3_BUCKET must be the name of a bucket'],
    [{ JOB_FILES: 'nfs' }, 'JOB_FILES must be local or s3'],
    [{ JOB_FILES_REDIRECT: 'true' }, 'JOB_FILES_REDIRECT=true needs JOB_FILES=s3'],
    [
      { JOB_FILES_ACCEL_REDIRECT: 'jobs/' },
      "JOB_FILES_ACCEL_REDIRECT must be a reverse proxy's internal location",
    ],
    [
      { JOB_FILES: 's3', JOB_FILES_S3_BUCKET: 'jobs', JOB_FILES_ACCEL_REDIRECT: '/presqt-job-files' },
      'JOB_FILES_ACCEL_REDIRECT=/presqt-job-files needs JOB_FILES=local',
    ],
    [
      { JOB_FILES: 's3', JOB_FILES_S3_BUCKET: 'jobs', JOB_FILES_S3_ACCESS_KEY_ID: 'key' },
      'JOB_FILES_S3_SECRET_ACCESS_KEY must be the secret of that key; it is required when JOB_FILES_S3_ACCESS_KEY_ID is set',
    ],
  ])('refuses a job-file store configured as %j', async (env, message) => {
    const proc = startApp('worker', { ...baseEnv(), ...env });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain(message);
  });

  it('serves the shipped targets file with its demo data, and uses PUBLIC_BASE_URL in links', async () => {
    const stack = await startStack({
      env: { TARGETS_FILE: SHIPPED_TARGETS_FILE, PUBLIC_BASE_URL: 'https://presqt.example.org/' },
    });
    try {
      const http = request(stack.baseUrl);
      const targets = await http.get('/api_v1/targets/').expect(200);
      expect(targets.body.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining([
          'osf',
          'curate_nd',
          'github',
          'zenodo',
          'gitlab',
          'figshare',
          'lab',
          'archive',
        ]),
      );
      expect(targets.body[0].links[0].link).toMatch(/^https:\/\/presqt\.example\.org\/api_v1\/targets\//);

      const token = { 'presqt-source-token': 'alice-lab-token' };
      const first = await http.get('/api_v1/targets/lab/resources/').set(token).expect(200);
      expect(first.body.pages.total_pages).toBe(2);
      const second = await http.get('/api_v1/targets/lab/resources/?page=2').set(token).expect(200);
      expect(first.body.resources.length + second.body.resources.length).toBe(12);

      const found = await http.get('/api_v1/targets/lab/resources/?keywords=coral').set(token).expect(200);
      expect(found.body.resources.map((r: { title: string }) => r.title)).toEqual(['Coral Reef Survey 2024']);
      const detail = await http
        .get(`/api_v1/targets/lab/resources/${found.body.resources[0].id}.json/`)
        .set(token)
        .expect(200);
      expect(detail.body.children.map((c: { title: string }) => c.title)).toContain('README.md');

      await http
        .get('/api_v1/targets/archive/resources/')
        .set('presqt-source-token', 'bob-archive-token')
        .expect(200);
      await http.get('/api_v1/targets/archive/resources/').set(token).expect(401);
    } finally {
      await stack.stop();
    }
  });

  it('runs a worker that reports ready and exits cleanly on SIGTERM', async () => {
    const stack = await startStack({ env: { TARGETS_FILE: SHIPPED_TARGETS_FILE } });
    try {
      const worker = stack.worker!;
      await waitForOutput(worker, /Worker ready: consuming queues download, upload, transfer/);
      worker.child.kill('SIGTERM');
      expect({ code: await worker.exited, output: worker.output().slice(-1500) }).toMatchObject({ code: 0 });
      expect(worker.output()).toContain('Worker stopped');
      stack.api.child.kill('SIGTERM');
      expect(await stack.api.exited).toBe(0);
    } finally {
      await stack.stop();
    }
  });
});
