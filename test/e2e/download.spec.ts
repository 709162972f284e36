import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import {
  binaryParser,
  downloadTo,
  extractZip,
  pollUntil,
  pollUntilDone,
  verifyBagZip,
} from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const ALICE = { 'presqt-source-token': 'alice-token' };
const START = { ...ALICE, 'presqt-email-opt-in': '' };
const BOB = { 'presqt-source-token': 'bob-token' };
/** big enough that a cancel sent after its first file always lands while it runs */
const HUGE_FILES = 40;
const BIG_FILE_BYTES = 8 << 20;

describe('downloads (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let root: string;
  const notes = 'field notes\n';
  const image = randomBytes(300_000);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'presqt-dl-'));
    const files: Record<string, string | Buffer> = {
      'alice/Study/notes.txt': notes,
      'alice/Study/images/photo one.png': image,
      'alice/Study/PRESQT_FTS_METADATA.json': JSON.stringify({ allKeywords: ['birds'], actions: [] }),
    };
    for (let i = 0; i < HUGE_FILES; i++) files[`alice/Huge/part-${i}.bin`] = randomBytes(BIG_FILE_BYTES);
    files['bob/Big/part-0.bin'] = randomBytes(1000);
    for (let i = 0; i < 4; i++) files[`bob/Large/part-${i}.bin`] = randomBytes(BIG_FILE_BYTES);
    writeTree(root, files);
    const targetsFile = writeTargetsFile([
      filesystemEntry('fs', root),
      filesystemEntry('fs_nodl', root, {
        supported_actions: { ...filesystemEntry('x', root).supported_actions, resource_download: false },
      }),
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, JOB_LOCK_MS: '2000' } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('downloads a project as a BagIt zip that an independent reader validates', async () => {
    const started = await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set(START)
      .expect(202);
    expect(started.body).toEqual({
      message: 'The server is processing the request.',
      download_job_zip: `${stack.baseUrl}/api_v1/job_status/download.zip/`,
      download_job_json: `${stack.baseUrl}/api_v1/job_status/download.json/`,
      ticket_number: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', ALICE);
    expect(done.status).toBe(200);
    const bagName = `fs_download_${fsId('Study')}`;
    expect(done.body).toMatchObject({
      status: 'finished',
      status_code: '200',
      job_percentage: 100,
      zip_name: `${bagName}.zip`,
      failed_fixity: [],
      files_total: 3,
      files_finished: 3,
      message: 'Download successful.',
    });

    const zip = await http
      .get('/api_v1/job_status/download.zip')
      .set(ALICE)
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-disposition']).toContain(`filename="${bagName}.zip"`);

    const zipFile = await downloadTo(zip, `${bagName}.zip`);
    verifyBagZip(zipFile, bagName);
    const bag = join(extractZip(zipFile), bagName);
    expect(readFileSync(join(bag, 'data', 'Study', 'notes.txt'), 'utf8')).toBe(notes);
    expect(readFileSync(join(bag, 'data', 'Study', 'images', 'photo one.png')).equals(image)).toBe(true);
    // the resource's own valid metadata file is merged into the bag's, not copied as payload
    expect(existsSync(join(bag, 'data', 'Study', 'PRESQT_FTS_METADATA.json'))).toBe(false);
    const metadata = JSON.parse(readFileSync(join(bag, 'PRESQT_FTS_METADATA.json'), 'utf8'));
    expect(metadata.allKeywords).toEqual(['birds']);
    expect(metadata.actions[0]).toMatchObject({
      actionType: 'resource_download',
      sourceTargetName: 'fs',
      sourceUsername: 'alice',
    });
    expect(
      metadata.actions[0].files.created.map((f: { destinationPath: string }) => f.destinationPath).sort(),
    ).toEqual(['/Study/images/photo one.png', '/Study/notes.txt']);
    const manifest = readFileSync(join(bag, 'manifest-md5.txt'), 'utf8');
    expect(manifest).toContain(`${createHash('md5').update(notes).digest('hex')}  data/Study/notes.txt`);
    for (const name of [
      'manifest-sha256.txt',
      'manifest-sha512.txt',
      'tagmanifest-sha256.txt',
      'bag-info.txt',
    ]) {
      expect(existsSync(join(bag, name))).toBe(true);
    }
    expect(readFileSync(join(bag, 'bag-info.txt'), 'utf8')).toMatch(/Payload-Oxum: \d+\.2/);

    // a finished job cannot be cancelled: 406 with its final status
    const late = await http.patch('/api_v1/job_status/download/').set(ALICE).expect(406);
    expect(late.body).toMatchObject({ status: 'finished', status_code: '200' });
  });

  it('checks everything it can before the 202', async () => {
    const path = `/api_v1/targets/fs/resources/${fsId('Study')}.zip/`;
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [{ 'presqt-email-opt-in': '' }, path, 400, "'presqt-source-token' missing"],
      [ALICE, path, 400, "'presqt-email-opt-in' missing"],
      [
        { ...ALICE, 'presqt-email-opt-in': 'a@b.org, c@d.org' },
        path,
        400,
        'must be empty or one email address',
      ],
      [{ ...START, 'presqt-source-token': 'nope' }, path, 401, 'Token is invalid'],
      [START, `/api_v1/targets/fs/resources/${fsId('Nothing')}.zip/`, 404, 'not found for this user'],
      [START, `/api_v1/targets/fs/resources/${fsId('../bob/Big')}.zip/`, 404, 'not found for this user'],
      [
        START,
        `/api_v1/targets/nowhere/resources/${fsId('Study')}.zip/`,
        404,
        "'nowhere' is not a valid Target name",
      ],
      [
        START,
        `/api_v1/targets/fs_nodl/resources/${fsId('Study')}.zip/`,
        400,
        "does not support the action 'resource_download'",
      ],
      [START, `/api_v1/targets/fs/resources/${fsId('Study')}.tar/`, 400, 'tar is not a valid format'],
    ];
    for (const [headers, url, status, message] of cases) {
      const res = await http.get(url).set(headers);
      expect({ url, status: res.status, error: res.body.error }).toEqual({
        url,
        status,
        error: expect.stringContaining(message),
      });
    }
  });

  it('answers job-status errors: missing token, unknown ticket, bad action or format', async () => {
    await http.get('/api_v1/job_status/download.json').expect(400);
    const unknown = await http
      .get('/api_v1/job_status/download.json')
      .set('presqt-source-token', 'never-used')
      .expect(404);
    expect(unknown.body.error).toMatch(/Invalid ticket number, '[0-9a-f]{64}'/);
    await http.get('/api_v1/job_status/download.xml').set(ALICE).expect(400);
    await http.get('/api_v1/job_status/uploads/').set(ALICE).expect(400);
    await http.patch('/api_v1/job_status/download.zip').set(ALICE).expect(400);
  });

  it('lets exactly one of two concurrent starts through, then cancels the running one', async () => {
    const path = `/api_v1/targets/fs/resources/${fsId('Huge')}.zip/`;
    const [first, second] = await Promise.all([http.get(path).set(START), http.get(path).set(START)]);
    expect([first.status, second.status].sort()).toEqual([202, 400]);
    expect([first, second].find((r) => r.status === 400)?.body).toEqual({
      error: 'User currently has processes in progress.',
    });

    await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/download.json',
      ALICE,
      (body) => Number(body.bytes_finished) > 0,
    );
    const cancel = await http.patch('/api_v1/job_status/download/').set(ALICE).expect(200);
    expect(cancel.body).toEqual({ status_code: '499', message: 'Download was cancelled by the user' });

    const after = await http.get('/api_v1/job_status/download.json').set(ALICE).expect(500);
    expect(after.body).toMatchObject({ status: 'cancelled', status_code: '499' });
    const zipAfter = await http.get('/api_v1/job_status/download.zip').set(ALICE).expect(500);
    expect(zipAfter.body.status_code).toBe('499');
    await http.patch('/api_v1/job_status/download/').set(ALICE).expect(406);

    // the worker stops and removes what it had written
    const ticket = String([first, second].find((r) => r.status === 202)?.body.ticket_number);
    const jobsDir = join(stack.dataDir, 'jobs', 'download', ticket);
    const deadline = Date.now() + 3000;
    while (existsSync(jobsDir) && readdirSync(jobsDir).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(existsSync(jobsDir) ? readdirSync(jobsDir) : []).toEqual([]);

    // the slot is free again
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study')}.zip/`)
      .set(START)
      .expect(202);
    await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', ALICE);
  });

  it("lets go of the zip's file at once when its client goes away mid-zip, and serves the next one whole", async () => {
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Large')}.zip/`)
      .set({ ...BOB, 'presqt-email-opt-in': '' })
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', BOB);
    const zipName = String(done.body.zip_name);
    const apiFiles = () => openFiles(stack.api.child.pid!);
    const idleFiles = apiFiles().length;

    // a client that reads the first MiB of the 32 MiB zip, stops reading, and then goes away
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      get(`${stack.baseUrl}/api_v1/job_status/download.zip/`, { headers: BOB }, resolve).on('error', reject),
    );
    expect(response.statusCode).toBe(200);
    let received = 0;
    await new Promise<void>((resolve) =>
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= 1 << 20) {
          response.pause();
          resolve();
        }
      }),
    );
    expect(apiFiles().filter((path) => path.endsWith(zipName))).toHaveLength(1);
    response.destroy();
    await pollFor(() => apiFiles().length === idleFiles, 1000);
    expect(apiFiles().filter((path) => path.endsWith(zipName))).toHaveLength(0);

    const whole = await http
      .get('/api_v1/job_status/download.zip')
      .set(BOB)
      .buffer(true)
      .parse(binaryParser)
      .expect(200);
    expect((whole.body as Buffer).length).toBe(Number(whole.headers['content-length']));
    verifyBagZip(await downloadTo(whole, zipName), zipName.replace(/\.zip$/, ''));
  });

  it('emails the user when the job ends, through the outbox when no SMTP server is set', async () => {
    await http
      .get(`/api_v1/targets/fs/resources/${fsId('Study/notes.txt')}.zip/`)
      .set({ ...ALICE, 'presqt-email-opt-in': 'alice@example.org' })
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/download.json/', ALICE);
    expect(done.body.files_total).toBe(1);
    const outbox = join(stack.dataDir, 'outbox');
    await pollFor(() => existsSync(outbox) && readdirSync(outbox).some((name) => name.endsWith('.eml')));
    const message = readFileSync(
      join(
        outbox,
        readdirSync(outbox).find((n) => n.endsWith('.eml'))!,
      ),
      'utf8',
    );
    expect(message).toMatch(/^To: alice@example\.org/m);
    expect(message).toMatch(/^Subject: PresQT Download Complete/m);
    expect(message).not.toContain('alice-token');
  });
});

/** The paths of the files a process has open (not its sockets, pipes or event descriptors). */
function openFiles(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      return target.startsWith('/') ? [target] : [];
    } catch {
      // closed since the listing
      return [];
    }
  });
}

async function pollFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
