import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ticketFor } from '@app/jobs';
import { startFakeProposer, type FakeProposer } from '../support/fake-proposer';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const SECRET_KEY = 'emulation-test-secret-0123456789abcdef';
const ALICE = { 'presqt-source-token': 'alice-token' };
const BOB = { 'presqt-source-token': 'bob-token' };
const PROPOSALS = '/api_v1/services/emulation/proposals/';
/** enough data that a download is still running right after its start */
const BIG_FILES = 16;
const BIG_FILE_BYTES = 4 << 20;

function testTargets(bigFiles: number): string {
  const root = mkdtempSync(join(tmpdir(), 'presqt-emulation-'));
  const files: Record<string, string | Buffer> = {
    'alice/Study/notes.txt': 'field notes\n',
    'alice/Study/data/readings.csv': 'site,value\nA,1\n',
  };
  for (let i = 0; i < bigFiles; i++) files[`bob/Big/part-${i}.bin`] = randomBytes(BIG_FILE_BYTES);
  writeTree(root, files);
  const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'carol-token': 'carol' };
  return writeTargetsFile([filesystemEntry('fs', root, { options: { root, tokens } })]);
}

/** Downloads alice's Study until it has finished; answers its ticket. */
async function finishedDownload(stack: Stack): Promise<string> {
  const started = await request(stack.baseUrl)
    .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
    .set({ ...ALICE, 'presqt-email-opt-in': '' })
    .expect(202);
  const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', ALICE);
  expect(done.status).toBe(200);
  return String(started.body.ticket_number);
}

/** The path of one of our absolute URLs, for supertest. */
function pathOf(url: string): string {
  const { pathname, search } = new URL(url);
  return `${pathname}${search}`;
}

describe('emulation service (real API, worker and Redis; fake EaaSI proposer)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let proposer: FakeProposer;
  let aliceTicket: string;

  beforeAll(async () => {
    proposer = await startFakeProposer();
    stack = await startStack({
      env: { TARGETS_FILE: testTargets(BIG_FILES), SECRET_KEY, EMULATION_API_URL: proposer.url },
    });
    http = request(stack.baseUrl);
    aliceTicket = await finishedDownload(stack);
  });

  afterAll(async () => {
    await stack?.stop();
    await proposer?.close();
  });

  it('hands the finished download to the proposer, which fetches a valid bag once, and relays the proposal', async () => {
    proposer.pause();
    const started = await http.post(PROPOSALS).set(ALICE).send({ ticket_number: aliceTicket }).expect(200);
    const id = String(started.body.id);
    expect(started.body).toEqual({
      id,
      message: 'Proposal task was submitted.',
      proposal_link: `${stack.baseUrl}/api_v1/services/emulation/proposals/${id}/`,
    });
    const task = proposer.tasks.get(id)!;
    expect(task.dataType).toBe('bagit+zip');
    expect(task.dataUrl).toMatch(
      new RegExp(`^${stack.baseUrl}/api_v1/services/emulation/${aliceTicket}/\\?emulation_token=[\\w.-]+$`),
    );

    const pending = await http.get(pathOf(started.body.proposal_link)).expect(202);
    expect(pending.body).toEqual({ message: 'Proposal task is still in progress.' });

    // wrong tokens are refused and do not use up the right one; nor does a HEAD with the right one
    const token = new URL(task.dataUrl).searchParams.get('emulation_token')!;
    const head = await http
      .head(`/api_v1/services/emulation/${aliceTicket}/`)
      .query({ emulation_token: token });
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('GET');
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [altered, 'not-a-token', `${token.split('.')[0]}.`]) {
      const refused = await http
        .get(`/api_v1/services/emulation/${aliceTicket}/`)
        .query({ emulation_token: wrong })
        .expect(401);
      expect(refused.body.error).toContain("'emulation_token' is not valid for this download");
    }

    proposer.resume();
    const done = await pollUntilDone(stack.baseUrl, pathOf(started.body.proposal_link), {});
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      image_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/blobstore\/api\/v1\/blobs\//),
      image_type: 'cdrom',
      environments: [`env-${id}-win98`],
      suggested: { [`env-${id}-win98`]: 'Windows 98 SE' },
    });
    expect(task).toMatchObject({
      state: 'finished',
      validBag: true,
      fetched: { status: 200, contentType: 'application/zip' },
    });

    // the proposer hands a result out once; we keep it
    const again = await http.get(pathOf(started.body.proposal_link)).expect(200);
    expect(again.body).toEqual(done.body);

    const reused = await http.get(pathOf(task.dataUrl)).expect(401);
    expect(reused.body.error).toContain('each token can be used once');
  });

  it('answers 405 to a GET on the proposals path, which takes POST', async () => {
    const res = await http.get(PROPOSALS).expect(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.error).toContain('only POST is allowed');
  });

  it('checks a proposal start: header, body, ticket and the state of the download', async () => {
    const noHeader = await http.post(PROPOSALS).send({ ticket_number: aliceTicket }).expect(400);
    expect(noHeader.body.error).toContain("'presqt-source-token' missing");
    for (const [body, error] of [
      [{}, "PresQT Error: 'ticket_number' missing in the request body."],
      [{ ticket_number: 42 }, "PresQT Error: 'ticket_number' must be a string."],
      [{ ticket_number: ' ' }, "PresQT Error: 'ticket_number' can't be blank."],
    ] as const) {
      const res = await http.post(PROPOSALS).set(ALICE).send(body).expect(400);
      expect(res.body).toEqual({ error });
    }

    const bobTicket = ticketFor(SECRET_KEY, 'bob-token');
    const wrongTicket = await http.post(PROPOSALS).set(ALICE).send({ ticket_number: bobTicket }).expect(404);
    expect(wrongTicket.body.error).toContain(`Invalid ticket number, '${bobTicket}'`);

    const carol = { 'presqt-source-token': 'carol-token' };
    const none = await http
      .post(PROPOSALS)
      .set(carol)
      .send({ ticket_number: ticketFor(SECRET_KEY, 'carol-token') })
      .expect(404);
    expect(none.body.error).toContain('A resource_download does not exist for this user');

    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Big')}.zip/`)
      .set({ ...BOB, 'presqt-email-opt-in': '' })
      .expect(202);
    const running = await http.post(PROPOSALS).set(BOB).send({ ticket_number: bobTicket }).expect(400);
    expect(running.body.error).toContain('the download is still in progress');
    await http.patch('/api_v1/job_status/download/').set(BOB).expect(200);
    const cancelled = await http.post(PROPOSALS).set(BOB).send({ ticket_number: bobTicket }).expect(404);
    expect(cancelled.body.error).toContain("this user's last download was cancelled");
  });

  it('checks the emulation download: parameter, ticket and token', async () => {
    const absent = await http.get(`/api_v1/services/emulation/${aliceTicket}/`).expect(400);
    expect(absent.body).toEqual({ error: "PresQT Error: 'emulation_token' not found as query parameter." });
    const unknownTicket = 'f'.repeat(64);
    const unknown = await http
      .get(`/api_v1/services/emulation/${unknownTicket}/`)
      .query({ emulation_token: 'x.y' })
      .expect(404);
    expect(unknown.body.error).toContain(`Invalid ticket number, '${unknownTicket}'`);
    await http.get(`/api_v1/services/emulation/${aliceTicket}`).query({ emulation_token: 'x.y' }).expect(401);
  });

  it('answers 404 for a proposal id it did not start, even one the proposer knows', async () => {
    const direct = await fetch(`${proposer.url}/proposals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data_url: 'http://127.0.0.1:9/none.zip', data_type: 'zip' }),
    });
    expect(direct.status).toBe(202);
    const { id } = (await direct.json()) as { id: string };
    for (const unknown of [id, 'not-ours']) {
      const res = await http.get(`${PROPOSALS}${unknown}/`).expect(404);
      expect(res.body.error).toContain(`Invalid proposal id, '${unknown}'`);
    }
  });

  it('reports a proposal task that failed because its download was replaced, with the reason', async () => {
    proposer.pause();
    const started = await http.post(PROPOSALS).set(ALICE).send({ ticket_number: aliceTicket }).expect(200);
    // a new download replaces the one the token was made for
    await finishedDownload(stack);
    const task = proposer.tasks.get(String(started.body.id))!;

    proposer.resume();
    const failed = await pollUntilDone(stack.baseUrl, pathOf(started.body.proposal_link), {});
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(
      /could not make a proposal from this download: .*HTTP response code: 404/,
    );
    expect(task).toMatchObject({ state: 'failed', fetched: { status: 404 } });
    const again = await http.get(pathOf(started.body.proposal_link)).expect(502);
    expect(again.body).toEqual(failed.body);
  });

  it('answers 502 when the proposer refuses the proposal or cannot be reached, and revokes the token', async () => {
    proposer.refuseSubmissions(true);
    const refused = await http.post(PROPOSALS).set(ALICE).send({ ticket_number: aliceTicket }).expect(502);
    expect(refused.body.error).toContain('the emulation service answered 503 while starting the proposal');
    expect(refused.body.error).toContain('lacks resources');
    const revoked = await http.get(pathOf(proposer.submittedDataUrls.at(-1)!)).expect(401);
    expect(revoked.body.error).toContain("'emulation_token' is not valid");

    await proposer.close();
    const down = await http.post(PROPOSALS).set(ALICE).send({ ticket_number: aliceTicket }).expect(502);
    expect(down.body.error).toContain(
      'the emulation service could not be reached while starting the proposal',
    );
  });
});

describe('emulation service without EMULATION_API_URL', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { TARGETS_FILE: testTargets(0) } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 503 on the proposal endpoints', async () => {
    const http = request(stack.baseUrl);
    for (const res of [
      await http.post(PROPOSALS).set(ALICE).send({ ticket_number: 'abc' }),
      await http.post(PROPOSALS).send({}),
      await http.get(`${PROPOSALS}1/`),
    ]) {
      expect(res.status).toBe(503);
      expect(res.body.error).toBe(
        'PresQT Error: the emulation service is not available on this server (EMULATION_API_URL is not set).',
      );
    }
  });
});
