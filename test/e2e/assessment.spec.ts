import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startFakeFairshake, type FakeFairshake } from '../support/fake-fairshake';
import { freePort } from '../support/ports';
import { startApp, startStack, waitForOutput, type Stack } from '../support/stack';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
const METRICS: Record<string, string[]> = { '7': range(12, 20), '8': range(21, 29), '9': range(30, 38) };
const OPTIONS = { '0.0': 'no', '0.25': 'nobut', '0.5': 'maybe', '0.75': 'yesbut', '1.0': 'yes' };
const OPTIONS_TEXT = 'Options are: 0.0, 0.25, 0.5, 0.75, 1.0.';
const REQUIRED_8 = 'Required metrics are: 21, 22, 23, 24, 25, 26, 27, 28, 29.';

/** An answer to every metric of the rubric. */
const allAnswered = (rubricId: string, answer: unknown = '1.0') =>
  Object.fromEntries(METRICS[rubricId].map((id) => [id, answer]));

const body = (projectUrl: string, overrides: Record<string, unknown> = {}) => ({
  project_url: projectUrl,
  project_title: 'Soil Moisture Study',
  rubric_answers: allAnswered('8'),
  ...overrides,
});

const prefix = () => `a${randomUUID().replace(/-/g, '').slice(0, 12)}`;

describe('assessment service, embedded store (real API process and Redis)', () => {
  const redisPrefix = prefix();
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { REDIS_PREFIX: redisPrefix } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it.each(['7', '8', '9'])('GET rubric %s answers its metrics and the answer options', async (rubricId) => {
    for (const path of [
      `/api_v1/services/assessment/rubric/${rubricId}/`,
      `/api_v1/services/assessment/rubric/${rubricId}`,
    ]) {
      const { body: rubric } = await http.get(path).expect(200);
      expect(Object.keys(rubric.metrics)).toEqual(METRICS[rubricId]);
      expect(rubric.answer_options).toEqual(OPTIONS);
    }
  });

  it('GET rubric gives the texts of the metrics', async () => {
    const { body: rubric } = await http.get('/api_v1/services/assessment/rubric/8/').expect(200);
    expect(rubric.metrics['21']).toBe(
      'A standardized ID or accession number is used to identify the dataset.',
    );
    expect(rubric.metrics['29']).toBe("Licensing information is provided on the dataset's landing page.");
  });

  it.each(['10', '93', 'abc'])(
    'GET and POST on rubric %s answer 400 listing the valid ids',
    async (rubricId) => {
      const path = `/api_v1/services/assessment/rubric/${rubricId}/`;
      const expected = `'${rubricId}' is not a valid rubric id. Choices are: 7, 8, 9.`;
      expect((await http.get(path).expect(400)).body.error).toContain(expected);
      // the rubric is checked first, whatever the body
      expect((await http.post(path).send(body('https://osf.io/abc12/')).expect(400)).body.error).toContain(
        expected,
      );
      expect((await http.post(path).send({}).expect(400)).body.error).toContain(expected);
    },
  );

  const { rubric_answers: answers } = body('https://osf.io/abc12/') as {
    rubric_answers: Record<string, unknown>;
  };
  const { '29': _omitted, ...withoutMetric29 } = answers;
  it.each<[string, unknown, string]>([
    [
      'project_url missing',
      { project_title: 'T', rubric_answers: answers },
      "'project_url' missing in POST body.",
    ],
    ['project_url null', body('x', { project_url: null }), "'project_url' missing in POST body."],
    [
      'project_url not a URL',
      body('osf.io/abc12'),
      "'project_url' must be an absolute http(s) URL, such as https://osf.io/abc12/.",
    ],
    [
      'project_url not http(s)',
      body('ftp://example.org/data'),
      "'project_url' must be an absolute http(s) URL",
    ],
    ['project_url a number', body('x', { project_url: 12 }), "'project_url' must be an absolute http(s) URL"],
    [
      'project_url too long',
      body(`https://example.org/${'a'.repeat(250)}`),
      "'project_url' is longer than 255",
    ],
    [
      'project_title missing',
      { project_url: 'https://osf.io/abc12/', rubric_answers: answers },
      "'project_title' missing in POST body.",
    ],
    [
      'project_title blank',
      body('https://osf.io/abc12/', { project_title: '  ' }),
      "'project_title' must be a non-blank string.",
    ],
    [
      'project_title not a string',
      body('https://osf.io/abc12/', { project_title: ['T'] }),
      "'project_title' must be a non-blank string.",
    ],
    [
      'rubric_answers missing',
      { project_url: 'https://osf.io/abc12/', project_title: 'T' },
      "'rubric_answers' missing in POST body.",
    ],
    [
      'rubric_answers a list',
      body('https://osf.io/abc12/', { rubric_answers: [{ '21': '1.0' }] }),
      "'rubric_answers' must be an object with the metric ids as keys and answers as values",
    ],
    [
      'rubric_answers a string',
      body('https://osf.io/abc12/', { rubric_answers: '1.0' }),
      "'rubric_answers' must be an object with the metric ids as keys",
    ],
    [
      'a key that is not a metric of the rubric',
      body('https://osf.io/abc12/', { rubric_answers: { ...answers, '12': '1.0' } }),
      `'12' is not a metric of rubric 8. ${REQUIRED_8}`,
    ],
    [
      'keys that are not metric ids at all',
      body('https://osf.io/abc12/', { rubric_answers: { ...answers, colour: '1.0', __proto__x: '1.0' } }),
      `'colour', '__proto__x' are not metrics of rubric 8. ${REQUIRED_8}`,
    ],
    [
      'a metric without an answer',
      body('https://osf.io/abc12/', { rubric_answers: withoutMetric29 }),
      `Missing response for metric '29'. ${REQUIRED_8}`,
    ],
    [
      'no answers at all',
      body('https://osf.io/abc12/', { rubric_answers: {} }),
      `Missing response for metric '21', '22', '23', '24', '25', '26', '27', '28', '29'. ${REQUIRED_8}`,
    ],
    [
      'an answer not among the options',
      body('https://osf.io/abc12/', { rubric_answers: { ...answers, '22': 'yes' } }),
      `"yes" (metric '22') is not a valid answer. ${OPTIONS_TEXT}`,
    ],
    [
      'answers not among the options',
      body('https://osf.io/abc12/', { rubric_answers: { ...answers, '22': '1', '23': 0.3, '24': true } }),
      `"1" (metric '22'), 0.3 (metric '23'), true (metric '24') are not valid answers. ${OPTIONS_TEXT}`,
    ],
    [
      'an unknown body field',
      body('https://osf.io/abc12/', { colour: 'red' }),
      "'colour' is not a body field of this endpoint.",
    ],
  ])('POST answers 400 for %s', async (_case, requestBody, message) => {
    const { body: answer } = await http
      .post('/api_v1/services/assessment/rubric/8/')
      .send(requestBody as object)
      .expect(400);
    expect(answer.error).toContain(message);
  });

  it('POST answers 400 naming every missing field of an empty body, and for a body that is not a JSON object', async () => {
    const empty = await http.post('/api_v1/services/assessment/rubric/8').send({}).expect(400);
    for (const field of ['project_url', 'project_title', 'rubric_answers']) {
      expect(empty.body.error).toContain(`'${field}' missing in POST body.`);
    }
    const broken = await http
      .post('/api_v1/services/assessment/rubric/8/')
      .set('Content-Type', 'application/json')
      .send('{"project_url": ')
      .expect(400);
    expect(broken.body.error).toContain('Send a valid JSON body');
    const list = await http
      .post('/api_v1/services/assessment/rubric/8/')
      .send([body('https://osf.io/abc12/')]);
    expect(list.status).toBe(400);
    expect(list.body.error).toBe(
      'PresQT Error: the POST body must be a JSON object with project_url, project_title and rubric_answers.',
    );
  });

  it('POST stores an assessment and answers its digital object id and the responses of the rubric', async () => {
    const rubricAnswers = {
      ...allAnswered('8', '0.0'),
      '21': '1.0',
      '22': '0.75',
      '23': 0.5, // numbers are read as the option they spell
      '24': 0.25,
      '25': 1,
    };
    const { body: result } = await http
      .post('/api_v1/services/assessment/rubric/8/')
      .send(body('https://osf.io/abc12/', { rubric_answers: rubricAnswers }))
      .expect(200);
    expect(result.digital_object_id).toBe(1);
    expect(result.rubric_responses).toHaveLength(9);
    expect(result.rubric_responses.slice(0, 6)).toEqual([
      {
        metric: 'A standardized ID or accession number is used to identify the dataset.',
        score: '1.0',
        score_explanation: 'yes',
      },
      {
        metric: 'The dataset is described with metadata using a formal, broadly applicable vocabulary.',
        score: '0.75',
        score_explanation: 'yesbut',
      },
      {
        metric: 'Information is provided on the experimental methods used to generate the data.',
        score: '0.5',
        score_explanation: 'maybe',
      },
      {
        metric: 'The dataset is hosted in an established data repository, if a relevant repository exists.',
        score: '0.25',
        score_explanation: 'nobut',
      },
      {
        metric: 'The dataset can be downloaded for free from the repository.',
        score: '1.0',
        score_explanation: 'yes',
      },
      { metric: 'Version information is provided for the dataset.', score: '0.0', score_explanation: 'no' },
    ]);
  });

  it('gives every assessment of the same project URL the same digital object, and a new URL the next id', async () => {
    const assess = async (rubricId: string, projectUrl: string) =>
      (
        await http
          .post(`/api_v1/services/assessment/rubric/${rubricId}`)
          .send(body(projectUrl, { rubric_answers: allAnswered(rubricId) }))
          .expect(200)
      ).body.digital_object_id;
    // another spelling of the same address, and another rubric
    expect(await assess('8', 'HTTPS://OSF.io:443/abc12/')).toBe(1);
    expect(await assess('9', 'https://osf.io/abc12/')).toBe(1);
    expect(await assess('7', 'https://github.com/example/tool')).toBe(2);
    expect(await assess('8', 'https://zenodo.org/records/42')).toBe(3);
    expect(await assess('7', 'https://github.com/example/tool')).toBe(2);
  });

  it('keeps the sequence and the digital objects across an API restart', async () => {
    await stack.stop();
    stack = await startStack({ worker: false, env: { REDIS_PREFIX: redisPrefix } });
    http = request(stack.baseUrl);
    const assess = async (projectUrl: string) =>
      (await http.post('/api_v1/services/assessment/rubric/8/').send(body(projectUrl)).expect(200)).body
        .digital_object_id;
    expect(await assess('https://zenodo.org/records/42')).toBe(3);
    expect(await assess('https://figshare.com/articles/7')).toBe(4);
    expect(await assess('https://osf.io/abc12/')).toBe(1);
  });
});

describe('assessment service registering at FAIRshake (real API process against a fake FAIRshake)', () => {
  const TOKEN = 'fairshake-secret-token';
  let fairshake: FakeFairshake;
  let stack: Stack;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    fairshake = await startFakeFairshake(TOKEN);
    stack = await startStack({
      worker: false,
      env: {
        FAIRSHAKE_URL: `${fairshake.url}/`,
        FAIRSHAKE_TOKEN: TOKEN,
        FAIRSHAKE_PROJECT_ID: '116',
        FAIRSHAKE_TIMEOUT_MS: '1000',
      },
    });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    await fairshake?.close();
  });

  const assess = (projectUrl: string, title = 'Soil Moisture Study') =>
    http
      .post('/api_v1/services/assessment/rubric/8/')
      .send(
        body(projectUrl, { project_title: title, rubric_answers: { ...allAnswered('8'), '22': '0.25' } }),
      );

  it("registers the digital object and the assessment at FAIRshake and answers FAIRshake's digital object id", async () => {
    const { body: result } = await assess('https://osf.io/abc12/').expect(200);
    expect(result.digital_object_id).toBe(5001);
    expect(result.rubric_responses[1]).toEqual({
      metric: 'The dataset is described with metadata using a formal, broadly applicable vocabulary.',
      score: '0.25',
      score_explanation: 'nobut',
    });
    expect(fairshake.requests).toEqual([
      {
        method: 'POST',
        path: '/digital_object/',
        authorization: `Token ${TOKEN}`,
        body: {
          url: 'https://osf.io/abc12/',
          title: 'Soil Moisture Study',
          type: 'data',
          rubrics: [8],
          projects: [116],
        },
      },
      {
        method: 'POST',
        path: '/assessment/',
        authorization: `Token ${TOKEN}`,
        body: {
          target: 5001,
          rubric: 8,
          project: 116,
          methodology: 'self',
          published: true,
          answers: METRICS['8'].map((metric) => ({
            metric: Number(metric),
            answer: metric === '22' ? 0.25 : 1,
          })),
        },
      },
    ]);
  });

  it('reuses the digital object of a project URL at FAIRshake, and registers a new URL as a new one', async () => {
    fairshake.requests.length = 0;
    expect((await assess('https://osf.io/abc12/', 'Renamed').expect(200)).body.digital_object_id).toBe(5001);
    expect(fairshake.requests.map((r) => r.path)).toEqual(['/assessment/']);
    expect((await assess('https://zenodo.org/records/42').expect(200)).body.digital_object_id).toBe(5002);
    expect(fairshake.requests.map((r) => r.path)).toEqual([
      '/assessment/',
      '/digital_object/',
      '/assessment/',
    ]);
  });

  it('sends nothing to FAIRshake for a request that fails validation', async () => {
    fairshake.requests.length = 0;
    await http.post('/api_v1/services/assessment/rubric/8/').send(body('not a url')).expect(400);
    await http.post('/api_v1/services/assessment/rubric/5/').send(body('https://osf.io/abc12/')).expect(400);
    expect(fairshake.requests).toEqual([]);
  });

  it('answers 502 naming the token when FAIRshake refuses it, and never prints the token', async () => {
    fairshake.token = 'rotated-token';
    try {
      const { body: answer } = await assess('https://figshare.com/articles/7').expect(502);
      expect(answer.error).toContain(
        'failed to register the digital object: it refused the configured FAIRSHAKE_TOKEN (HTTP 401: Invalid token.)',
      );
      expect(answer.error).not.toContain(TOKEN);
    } finally {
      fairshake.token = TOKEN;
    }
    // the log line comes through a pipe of its own: it may arrive after the answer
    await waitForOutput(stack.api, /FAIRSHAKE_TOKEN \(HTTP 401/);
    expect(stack.api.output()).not.toContain(TOKEN);
  });

  it('answers 502 when FAIRshake does not answer in time', async () => {
    fairshake.stall = true;
    try {
      const started = Date.now();
      const { body: answer } = await assess('https://osf.io/abc12/').expect(502);
      expect(answer.error).toContain('failed to register the assessment: it did not answer within 1000 ms');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      fairshake.stall = false;
    }
  });

  it('answers 502 when FAIRshake is down', async () => {
    await fairshake.close();
    const { body: answer } = await assess('https://osf.io/abc12/').expect(502);
    expect(answer.error).toContain(
      'failed to register the assessment: it could not be reached (ECONNREFUSED)',
    );
    expect(answer.error).toContain('The assessment was not stored');
  });
});

describe('assessment settings at start-up', () => {
  const env = () => ({
    REDIS_URL: process.env.PRESQT_TEST_REDIS_URL ?? '',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'presqt-assessment-')),
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'FAIRSHAKE_URL without FAIRSHAKE_TOKEN',
      { FAIRSHAKE_URL: 'https://fairshake.cloud' },
      'FAIRSHAKE_TOKEN must be a FAIRshake API token; it is required when FAIRSHAKE_URL is set (the two are set together or not at all)',
    ],
    [
      'FAIRSHAKE_TOKEN without FAIRSHAKE_URL',
      { FAIRSHAKE_TOKEN: 'secret' },
      'FAIRSHAKE_URL must be an absolute http(s) URL, such as https://fairshake.cloud; it is required when FAIRSHAKE_TOKEN is set (the two are set together or not at all)',
    ],
    [
      'a FAIRSHAKE_URL that is not a URL',
      { FAIRSHAKE_URL: 'fairshake', FAIRSHAKE_TOKEN: 'secret' },
      'FAIRSHAKE_URL must be an absolute http(s) URL',
    ],
    [
      'a FAIRSHAKE_PROJECT_ID that is not a number',
      { FAIRSHAKE_PROJECT_ID: 'presqt' },
      'FAIRSHAKE_PROJECT_ID must be an integer',
    ],
  ])('refuses to start with %s', async (_case, settings, message) => {
    const api = startApp('api', { ...env(), PORT: String(await freePort()), ...settings });
    expect(await api.exited).toBe(1);
    expect(api.output()).toContain(message);
    expect(api.output()).not.toContain('secret');
  });
});
