import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import {
  JOB_KIND_DESCRIPTIONS,
  JOB_KINDS,
  jobStatusPath,
  jsonStatusPath,
  tokenHeaders,
} from '@app/job-kinds';
import { runCli } from '../support/cli';
import { partneredEntries, writeTargetsFile } from '../support/fs-fixtures';
import { startStack, type Stack } from '../support/stack';

/** A user with no job of any kind. */
const TOKEN = 'alice-token';

describe('each job kind at the routes its description names (built API and CLI, real Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const targetsFile = writeTargetsFile(
      partneredEntries(
        mkdtempSync(join(tmpdir(), 'presqt-kinds-src-')),
        mkdtempSync(join(tmpdir(), 'presqt-kinds-dst-')),
      ),
    );
    stack = await startStack({ env: { TARGETS_FILE: targetsFile }, worker: false });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const tokensOf = (kind: (typeof JOB_KINDS)[number]) =>
    Object.fromEntries(tokenHeaders(kind).map((header) => [header, TOKEN]));

  describe.each(JOB_KINDS)('%s', (kind) => {
    const { formats, spellings } = JOB_KIND_DESCRIPTIONS[kind];

    it('is polled and cancelled at its paths, found by the tokens its description names', async () => {
      const paths = [jsonStatusPath(kind), ...formats.map((format) => jobStatusPath(kind, format))];
      for (const path of paths) {
        const unknown = await http.get(path).set(tokensOf(kind)).expect(404);
        expect(unknown.body.error).toContain('Invalid ticket number');
      }
      for (const name of [kind, ...spellings]) {
        const cancel = await http.patch(`/api_v1/job_status/${name}/`).set(tokensOf(kind)).expect(404);
        expect(cancel.body.error).toContain('Invalid ticket number');
      }
      // each token is needed: without it, 400 naming its header
      for (const header of tokenHeaders(kind)) {
        const { [header]: _left, ...others } = tokensOf(kind);
        const missing = await http.get(jsonStatusPath(kind)).set(others).expect(400);
        expect(missing.body.error).toBe(`PresQT Error: '${header}' missing in the request headers.`);
      }
    });

    it('is found by `presqt status` and `presqt cancel` with a token for each of its targets', async () => {
      const targets = JOB_KIND_DESCRIPTIONS[kind].tokens.map((role) => (role === 'source' ? 'src' : 'dst'));
      const env = { PRESQT_SERVER: stack.baseUrl, PRESQT_TOKEN_SRC: TOKEN, PRESQT_TOKEN_DST: TOKEN };
      for (const command of ['status', 'cancel']) {
        const { status, stdout, stderr } = await runCli([command, kind, ...targets], env).done;
        expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
        expect(stderr).toMatch(
          /^presqt: PresQT Error: Invalid ticket number, '[0-9a-f]{64}'\. \(HTTP 404\)\n$/,
        );
      }
      const usage = await runCli(['status', kind, ...targets, 'src'], env).done;
      expect(usage.status).toBe(2);
    });
  });

  it('documents every kind, its formats, spellings and token headers in the OpenAPI document', async () => {
    const { body } = await http.get('/api/docs-json').expect(200);
    const operations = body.paths['/api_v1/job_status/{action}'];
    const actions = (method: string) =>
      operations[method].parameters.find((parameter: { name: string }) => parameter.name === 'action').schema
        .enum;
    const headers = (method: string) =>
      operations[method].parameters
        .filter((parameter: { in: string }) => parameter.in === 'header')
        .map((parameter: { name: string }) => parameter.name);
    for (const kind of JOB_KINDS) {
      const { formats, spellings } = JOB_KIND_DESCRIPTIONS[kind];
      expect(actions('get')).toEqual(
        expect.arrayContaining([kind, ...formats.map((format) => `${kind}.${format}`)]),
      );
      expect(actions('patch')).toEqual(expect.arrayContaining([kind, ...spellings]));
      for (const method of ['get', 'patch'])
        expect(headers(method)).toEqual(expect.arrayContaining(tokenHeaders(kind)));
    }
    const described = Object.fromEntries(
      operations.get.parameters.map((parameter: { name: string; description?: string }) => [
        parameter.name,
        parameter.description,
      ]),
    );
    expect(described).toMatchObject({
      'presqt-source-token': 'download and transfer',
      'presqt-destination-token': 'upload and transfer',
    });
    expect(operations.get.summary).toBe('Poll a job: download(.json|.zip), upload or transfer');
    expect(operations.patch.summary).toBe('Cancel a job: download, upload or transfer');
  });
});
