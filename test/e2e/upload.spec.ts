import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeBagZip, patchCentralDirectory, zipOf } from '../support/bags';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { pollUntilDone } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';

const FIXTURES = join(__dirname, '..', '..', '..', 'shared', 'fixtures', 'bags');
const TOKEN = { 'presqt-destination-token': 'alice-token' };
const HEADERS = { ...TOKEN, 'presqt-file-duplicate-action': 'ignore', 'presqt-email-opt-in': '' };

describe('uploads (real API, worker and Redis)', () => {
  let stack: Stack;
  let http: ReturnType<typeof request>;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'presqt-up-'));
    writeTree(root, {
      'alice/Existing/old.txt': 'old',
      'alice/Existing/sub/keep.txt': 'keep',
      'alice/Other/old.txt': 'old',
      'alice/Other/sub/keep.txt': 'keep',
    });
    const targetsFile = writeTargetsFile([
      filesystemEntry('fs', root),
      filesystemEntry('readonly', root, {
        supported_actions: { ...filesystemEntry('x', root).supported_actions, resource_upload: false },
      }),
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, MAX_UPLOAD_BYTES: String(8 << 20) } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const upload = (
    path: string,
    zip: Buffer,
    headers: Record<string, string> = HEADERS,
    name = 'package.zip',
  ) => http.post(path).set(headers).attach('presqt-file', zip, name);

  it('uploads a real bagit-python bag as a new project', async () => {
    const zip = readFileSync(join(FIXTURES, 'ProjectBagItToUpload.zip'));
    const start = await upload('/api_v1/targets/fs/resources/', zip).expect(202);
    expect(start.body).toEqual({
      message: 'The server is processing the request.',
      upload_job: `${stack.baseUrl}/api_v1/job_status/upload/`,
    });
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'finished',
      status_code: '200',
      failed_fixity: [],
      resources_ignored: [],
      resources_updated: [],
      destination_resource_id: fsId('NewProject'),
      message: 'Upload successful.',
    });
    const image = join(
      root,
      'alice',
      'NewProject',
      'funnyfunnyimages',
      'Screen Shot 2019-07-15 at 3.26.49 PM.png',
    );
    expect(readFileSync(image).length).toBe(731202);
    const metadata = JSON.parse(
      readFileSync(join(root, 'alice', 'NewProject', 'PRESQT_FTS_METADATA.json'), 'utf8'),
    );
    expect(metadata.actions[0]).toMatchObject({ actionType: 'resource_upload', destinationTargetName: 'fs' });
    expect(metadata.actions[0].files.created[0].destinationPath).toBe(
      '/NewProject/funnyfunnyimages/Screen Shot 2019-07-15 at 3.26.49 PM.png',
    );
    // a second upload of the same project gets a new name rather than mixing into the first
    await upload('/api_v1/targets/fs/resources/', zip).expect(202);
    const again = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
    expect(again.body.destination_resource_id).toBe(fsId('NewProject (2)'));
  });

  it('uploads into an existing container, ignoring or updating duplicates', async () => {
    const into = `/api_v1/targets/fs/resources/${fsId('Existing')}/`;
    const bag = (content: string) =>
      makeBagZip({ files: { 'old.txt': content, 'new.txt': 'new' }, algorithms: ['md5', 'sha512'] });
    await upload(into, await bag('replaced')).expect(202);
    const ignored = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
    expect(ignored.body).toMatchObject({
      resources_ignored: ['/old.txt'],
      resources_updated: [],
      failed_fixity: [],
    });
    expect(readFileSync(join(root, 'alice', 'Existing', 'old.txt'), 'utf8')).toBe('old');
    expect(readFileSync(join(root, 'alice', 'Existing', 'new.txt'), 'utf8')).toBe('new');

    await upload(into, await bag('replaced'), {
      ...HEADERS,
      'presqt-file-duplicate-action': 'update',
    }).expect(202);
    const updated = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
    expect(updated.body).toMatchObject({ resources_updated: ['/old.txt'], resources_ignored: ['/new.txt'] });
    expect(readFileSync(join(root, 'alice', 'Existing', 'old.txt'), 'utf8')).toBe('replaced');
  });

  it('refuses every bad package with 400 before the 202, leaving nothing behind', async () => {
    const good = { 'Project/a.txt': 'a', 'Project/b.csv': '1,2\n' };
    const bomb = await zipOf([
      { name: 'bag/data/Project/zeros.bin', content: Buffer.alloc(6 << 20), deflate: true },
    ]);
    const cases: Array<[string, Buffer, string]> = [
      [
        'a bad manifest (bagit-python)',
        readFileSync(join(FIXTURES, 'BadBagItManifest.zip')),
        'Checksums failed to validate',
      ],
      [
        'no bag folder (bagless zip)',
        readFileSync(join(FIXTURES, 'bagless_zip.zip')),
        'files at its top level',
      ],
      [
        'two folders in data/',
        readFileSync(join(FIXTURES, 'BadProjectMultipleFolders.zip')),
        'Multiple directories exist at the top level',
      ],
      [
        'files at the top of data/',
        await makeBagZip({ files: { 'loose.txt': 'x' } }),
        'Files exist at the top level',
      ],
      [
        'a wrong checksum',
        await makeBagZip({
          files: good,
          mutate: (bag) => bag.set('data/Project/a.txt', Buffer.from('b')),
        }),
        'Checksums failed to validate',
      ],
      [
        'a missing file',
        await makeBagZip({ files: good, mutate: (bag) => bag.delete('data/Project/b.csv') }),
        'not a valid BagIt bag',
      ],
      [
        'an extra file',
        await makeBagZip({
          files: good,
          mutate: (bag) => bag.set('data/Project/extra.txt', Buffer.from('x')),
        }),
        'not a valid BagIt bag',
      ],
      [
        'no bagit.txt',
        await makeBagZip({ files: good, mutate: (bag) => bag.delete('bagit.txt') }),
        'bagit.txt',
      ],
      [
        'zip slip',
        patchCentralDirectory(await zipOf([{ name: 'bag/data/Project/aa.txt', content: 'x' }]), 0, {
          name: 'bag/data/../../../a.txt',
        }),
        '..',
      ],
      ['a symlink entry', await zipOf([{ name: 'bag/data/Project/link', symlinkTo: '/etc/passwd' }]), 'link'],
      ['a zip bomb', bomb, 'ratio'],
      ['not a zip', Buffer.from('this is plain text, not a zip'), 'is not a zip file'],
      ['an empty zip', await zipOf([]), 'empty'],
    ];
    const before = readdirSync(join(root, 'alice')).sort();
    for (const [name, zip, message] of cases) {
      const res = await upload('/api_v1/targets/fs/resources/', zip);
      expect({ name, status: res.status, error: res.body.error }).toEqual({
        name,
        status: 400,
        error: expect.stringContaining(message),
      });
    }
    expect(readdirSync(join(root, 'alice')).sort()).toEqual(before);
    expect(readdirSync(join(stack.dataDir, 'uploads'))).toEqual([]);
  });

  it('refuses names the target cannot hold before the 202, naming each', async () => {
    const long = 'n'.repeat(256);
    const zip = await makeBagZip({
      files: { 'Named/ok.txt': 'ok', 'Named/.presqt-notes.txt': 'x', [`Named/sub/${long}.txt`]: 'y' },
    });
    const before = readdirSync(join(root, 'alice')).sort();
    const refused = await upload('/api_v1/targets/fs/resources/', zip).expect(400);
    expect(refused.body.error).toContain(
      "'.presqt-notes.txt' (names starting with .presqt are kept for the service)",
    );
    expect(refused.body.error).toContain(`'sub/${long}.txt' (it is longer than 255 bytes)`);
    expect(readdirSync(join(root, 'alice')).sort()).toEqual(before);
  });

  it('numbers a second project of a 255-byte title within the name limit', async () => {
    const title = `${'é'.repeat(100)}${'t'.repeat(55)}`;
    expect(Buffer.byteLength(title)).toBe(255);
    const zip = await makeBagZip({ files: { [`${title}/a.txt`]: 'a' } });
    for (const expected of [title, `${'é'.repeat(100)}${'t'.repeat(51)} (2)`]) {
      await upload('/api_v1/targets/fs/resources/', zip).expect(202);
      const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
      expect(done.body).toMatchObject({ status: 'finished', destination_resource_id: fsId(expected) });
      expect(readFileSync(join(root, 'alice', expected, 'a.txt'), 'utf8')).toBe('a');
    }
  });

  it('takes back what a failed upload wrote: created files go, replaced ones come back', async () => {
    const into = `/api_v1/targets/fs/resources/${fsId('Other')}/`;
    // `sub` is a folder at the target: writing a file of that name fails once the others are written
    const zip = await makeBagZip({ files: { 'old.txt': 'changed', 'new.txt': 'new', sub: 'clash' } });
    await upload(into, zip, { ...HEADERS, 'presqt-file-duplicate-action': 'update' }).expect(202);
    const failed = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN);
    expect(failed.status).toBe(500);
    expect(failed.body.status).toBe('failed');
    expect(String(failed.body.status_code)).toBe('400');
    expect(failed.body.message).toContain("'sub' cannot be written");
    expect(failed.body.message).not.toContain(root);
    expect(readdirSync(join(root, 'alice', 'Other')).sort()).toEqual(['old.txt', 'sub']);
    expect(readFileSync(join(root, 'alice', 'Other', 'old.txt'), 'utf8')).toBe('old');
  });

  it("refuses a user's simultaneous uploads at once, before receiving and inspecting their packages", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) files[`Many/d${i % 50}/f${i}.txt`] = `file ${i}`;
    const zip = await makeBagZip({ files, algorithms: ['sha256', 'sha512'] });
    const answered: Array<{ status: number; error?: string; at: number }> = [];
    const started = Date.now();
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const res = await upload('/api_v1/targets/fs/resources/', zip);
        answered.push({ status: res.status, error: res.body.error, at: Date.now() - started });
      }),
    );
    const accepted = answered.filter((answer) => answer.status === 202);
    const refused = answered.filter((answer) => answer.status === 400);
    expect(accepted).toHaveLength(1);
    expect(refused.map((answer) => answer.error)).toEqual(
      Array(3).fill('User currently has processes in progress.'),
    );
    // the refusals did not wait for the accepted package to be received and inspected
    for (const answer of refused) expect(answer.at).toBeLessThan(accepted[0].at);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', TOKEN, 60_000);
    expect(done.body).toMatchObject({ status: 'finished', destination_resource_id: fsId('Many') });
  });

  it('answers the header, target, size and token errors', async () => {
    const zip = await makeBagZip({ files: { 'P/a.txt': 'a' } });
    const without = (name: string) =>
      Object.fromEntries(Object.entries(HEADERS).filter(([key]) => key !== name));
    expect(
      (await upload('/api_v1/targets/fs/resources/', zip, without('presqt-destination-token'))).status,
    ).toBe(400);
    expect(
      (await upload('/api_v1/targets/fs/resources/', zip, without('presqt-file-duplicate-action'))).status,
    ).toBe(400);
    expect(
      (
        await upload('/api_v1/targets/fs/resources/', zip, {
          ...HEADERS,
          'presqt-file-duplicate-action': 'merge',
        })
      ).status,
    ).toBe(400);
    expect((await upload('/api_v1/targets/fs/resources/', zip, without('presqt-email-opt-in'))).status).toBe(
      400,
    );
    expect(
      (await upload('/api_v1/targets/fs/resources/', zip, { ...HEADERS, 'presqt-destination-token': 'bad' }))
        .status,
    ).toBe(401);
    expect((await upload('/api_v1/targets/nope/resources/', zip)).status).toBe(404);
    const readonly = await upload('/api_v1/targets/readonly/resources/', zip).expect(400);
    expect(readonly.body.error).toContain("does not support the action 'resource_upload'");
    await upload(`/api_v1/targets/fs/resources/${fsId('Nothing')}/`, zip).expect(404);
    await upload(`/api_v1/targets/fs/resources/${fsId('Existing/old.txt')}/`, zip).expect(400);
    const missing = await http
      .post('/api_v1/targets/fs/resources/')
      .set(HEADERS)
      .field('other', 'x')
      .expect(400);
    expect(missing.body.error).toContain("The file, 'presqt-file', is not found");
    const huge = await upload('/api_v1/targets/fs/resources/', Buffer.alloc(9 << 20)).expect(413);
    expect(huge.body.error).toContain('larger than the limit');
    expect(
      existsSync(join(stack.dataDir, 'uploads')) ? readdirSync(join(stack.dataDir, 'uploads')) : [],
    ).toEqual([]);
  });
});
