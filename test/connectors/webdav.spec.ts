import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorSession, RemoteFile } from '@app/connectors';
import { webdavConnector, type WebdavOptions } from '@app/connectors/webdav';
import { incoming } from '../conformance/suite';
import { FakeServer } from '../fakes/fake-server';
import { NextcloudFake } from '../fakes/webdav/nextcloud-fake';
import { connectorContext } from '../support/connector-context';
import { failureOf, readAll, statusOf } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';

const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex');
const sha1 = (bytes: Buffer | string) => createHash('sha1').update(bytes).digest('hex');

describe('webdav connector against a Nextcloud fake', () => {
  let fake: NextcloudFake;
  let token: string;
  let session: ConnectorSession;
  const open = async (options: Partial<WebdavOptions> = {}) =>
    webdavConnector.create({ api_url: fake.urlTemplate, ...options }, connectorContext()).open(token);

  beforeAll(async () => {
    fake = await new NextcloudFake().start();
  });
  afterAll(() => fake.stop());
  beforeEach(async () => {
    fake.reset();
    fake.server.clearFaults();
    fake.server.requests.length = 0;
    token = fake.addUser('alice', 'app-password');
    session = await open();
  });

  async function files(id: string): Promise<RemoteFile[]> {
    const found: RemoteFile[] = [];
    for await (const entry of session.walk(id)) if (entry.kind === 'file') found.push(entry);
    return found;
  }
  const requests = (method: string, path: RegExp) =>
    fake.server.requests.filter((request) => request.method === method && path.test(request.url));

  it('checks the token with a PROPFIND of the user’s root: 401 for a wrong password or a token without one', async () => {
    expect(session.username).toBe('alice');
    expect(
      await statusOf(
        webdavConnector.create({ api_url: fake.urlTemplate }, connectorContext()).open('alice:nope'),
      ),
    ).toBe(401);
    expect(
      await statusOf(webdavConnector.create({ api_url: fake.urlTemplate }, connectorContext()).open('alice')),
    ).toBe(401);
    const sent = requests('PROPFIND', /\/files\/alice\/$/)[0];
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(token).toString('base64')}`);
  });

  it('finds the user id of a login that is not it (an e-mail address) with current-user-principal, at no cost to others', async () => {
    expect(requests('PROPFIND', /./)).toHaveLength(1);
    const byEmail = fake.addUser('alice', 'app-password', 'alice@example.org');
    fake.seedProject('alice', 'Plankton', { 'counts.csv': '1,2\n' });
    fake.server.requests.length = 0;
    const session = await webdavConnector
      .create({ api_url: fake.urlTemplate }, connectorContext())
      .open(byEmail);
    expect(session.username).toBe('alice');
    expect((await session.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual(['Plankton']);
    expect(
      fake.server.requests.filter((r) => r.method === 'PROPFIND').map((r) => decodeURIComponent(r.url)),
    ).toEqual([
      '/remote.php/dav/files/alice@example.org/',
      '/remote.php/dav/',
      '/remote.php/dav/files/alice/',
      '/remote.php/dav/files/alice/',
    ]);
    // a wrong password is still refused, and a login that is no one's still names no root
    const connector = webdavConnector.create({ api_url: fake.urlTemplate }, connectorContext());
    expect(await statusOf(connector.open('alice@example.org:wrong'))).toBe(401);
    fake.addUser('nobody-home', 'pw');
    fake.nodes.delete('nobody-home/');
    expect(await statusOf(connector.open('nobody-home:pw'))).toBe(401);
  });

  it('uses the root of the principal’s id where the login is another user’s id, whose root Nextcloud answers as an empty folder', async () => {
    // an LDAP user whose internal id is a UUID logs in as 'bob', also the id of a local user
    fake.addUser('bob', 'bob-password');
    const token = fake.addUser('3f9c2a10', 'ldap-password', 'bob');
    fake.seedProject('3f9c2a10', 'Kelp', { 'k.txt': 'k' });
    const session = await webdavConnector
      .create({ api_url: fake.urlTemplate }, connectorContext())
      .open(token);
    expect(session.username).toBe('3f9c2a10');
    expect((await session.listResources({ page: 1 })).resources.map((r) => r.title)).toEqual(['Kelp']);
  });

  it('vouches for files with the MD5 and SHA1 of oc:checksums without reading them, and reads those without', async () => {
    const id = fake.seedProject('alice', 'Summed', { 'kept.txt': 'kept' });
    fake.seedProject('alice', 'Plain', { 'plain.txt': 'plain' }, false);
    const [kept] = await files(id);
    expect(kept.checksumsOfBytes).toBeUndefined();
    expect(await kept.sourceHashes(['md5', 'sha1'])).toEqual({ md5: md5('kept'), sha1: sha1('kept') });
    expect(requests('GET', /kept\.txt/)).toEqual([]);
    const [plain] = await files(Buffer.from('Plain').toString('base64url'));
    expect(plain.checksumsOfBytes).toBe(true);
    expect(await plain.sourceHashes(['md5'])).toEqual({ md5: md5('plain') });
    expect(requests('GET', /plain\.txt/)).toHaveLength(1);
    const detail = await session.getResource((await session.getResource(id)).children[0].id);
    expect(detail.hashes.md5).toBe(md5('kept'));
  });

  it('lists with PROPFIND Depth 0 or 1 only, never infinity', async () => {
    const id = fake.seedProject('alice', 'Deep', { 'a/b/c/d.txt': 'd', 'a/e.txt': 'e' });
    expect((await files(id)).map((file) => file.path)).toEqual(['Deep/a/e.txt', 'Deep/a/b/c/d.txt']);
    await session.listResources({ page: 1 });
    const depths = new Set(
      fake.server.requests.filter((r) => r.method === 'PROPFIND').map((r) => r.headers.depth),
    );
    expect([...depths].sort()).toEqual(['0', '1']);
  });

  it('sends the MD5 the source vouches for as OC-Checksum with a PUT, and none where it vouches none, reading the file once', async () => {
    const project = await session.createProject('Sent');
    const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
    const vouched = countedFile('a,b\n', undefined, { md5: md5('a,b\n'), sha256: 'ab'.repeat(32) });
    const stored = await writer.putFile(['data', 'v.csv'], vouched, 'ignore');
    expect(stored).toMatchObject({
      outcome: 'created',
      path: '/Sent/data/v.csv',
      hashes: { md5: md5('a,b\n') },
    });
    const [put] = requests('PUT', /\/files\/alice\/Sent\/data\/v\.csv$/);
    expect(put.headers['oc-checksum']).toBe(`MD5:${md5('a,b\n')}`);
    expect(put.headers['if-none-match']).toBe('*');
    expect(fake.file('alice', 'Sent/data/v.csv')?.bytes.toString()).toBe('a,b\n');
    expect(vouched.opened).toBe(1);

    // GitHub vouches for no MD5: the file is not read ahead for one, and Nextcloud then keeps none
    const unvouched = countedFile('c,d\n', undefined, { sha256: 'cd'.repeat(32) });
    const plain = await writer.putFile(['w.csv'], unvouched, 'ignore');
    expect(plain).toMatchObject({ outcome: 'created', hashes: {} });
    expect(unvouched.opened).toBe(1);
    const [second] = requests('PUT', /\/files\/alice\/Sent\/w\.csv$/);
    expect(second.headers['oc-checksum']).toBeUndefined();
    expect(fake.file('alice', 'Sent/w.csv')?.bytes.toString()).toBe('c,d\n');
  });

  it('asks for a written file’s checksums only while the server keeps them for writes of its kind', async () => {
    const project = await session.createProject('Learnt');
    const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
    fake.server.requests.length = 0;
    const put = (name: string, known?: Record<string, string>) =>
      writer.putFile([name], countedFile(name, undefined, known), 'ignore');
    // without an MD5 Nextcloud keeps none: learnt from the first such file, the next is not asked
    expect((await put('a.txt')).hashes).toEqual({});
    expect((await put('b.txt')).hashes).toEqual({});
    // with one it keeps it, and each is asked
    expect((await put('c.txt', { md5: md5('c.txt') })).hashes).toEqual({ md5: md5('c.txt') });
    expect((await put('d.txt', { md5: md5('d.txt') })).hashes).toEqual({ md5: md5('d.txt') });
    const asked = ['a', 'b', 'c', 'd'].map((name) =>
      requests('PROPFIND', new RegExp(`/Learnt/${name}\\.txt$`)),
    );
    expect(asked.map((found) => found.length)).toEqual([1, 0, 1, 1]);
    expect(fake.file('alice', 'Learnt/b.txt')?.bytes.toString()).toBe('b.txt');
  });

  it('takes back the folders a killed run made before it could store a file in them', async () => {
    const id = fake.seedProject('alice', 'Existing', { 'keep.txt': 'keep' });
    const stagingDir = mkdtempSync(join(tmpdir(), 'presqt-webdav-staging-'));
    try {
      const options = { newProject: false, message: 'x', stagingDir };
      // the run dies while its first file's bytes go: the folders are made, nothing is staged with a file
      const killed = await session.openWriter(id, options);
      fake.server.inject({ kind: 'status', status: 500, times: 100, match: { method: 'PUT' } });
      await failureOf(killed.putFile(['raw', 'deep', 'x.bin'], incoming('x'), 'ignore'));
      fake.server.clearFaults();
      expect(fake.nodes.has('alice/Existing/raw/deep/')).toBe(true);
      // a later run of the job, cancelled, takes back what the job made: its checkpoints have no file
      const later = await session.openWriter(id, options);
      later.restage([]);
      await later.abandon!();
      expect([...fake.nodes.keys()].filter((key) => key.startsWith('alice/Existing/'))).toEqual([
        'alice/Existing/',
        'alice/Existing/keep.txt',
      ]);
    } finally {
      rmSync(stagingDir, { recursive: true, force: true });
    }
  });

  it('uploads a file above chunk_mib with chunked upload v2, and deletes the upload when a chunk fails', async () => {
    const big = randomBytes(11 * (1 << 20) + 5);
    const chunked = await open({ chunk_mib: 5 });
    const project = await chunked.createProject('Chunked');
    const writer = await chunked.openWriter(project.id, { newProject: true, message: 'x' });
    const stored = await writer.putFile(['big.bin'], incoming(big), 'ignore');
    expect(stored.outcome).toBe('created');
    expect(md5(fake.file('alice', 'Chunked/big.bin')!.bytes)).toBe(md5(big));
    const [mkcol] = requests('MKCOL', /\/uploads\/alice\/presqt-/);
    expect(mkcol.headers.destination).toBe(`${fake.server.url}/files/alice/Chunked/big.bin`);
    expect(
      requests('PUT', /\/uploads\/alice\/presqt-[^/]+\/\d+$/).map((r) => r.url.split('/').pop()),
    ).toEqual(['1', '2', '3']);
    const [move] = requests('MOVE', /\/\.file$/);
    expect(move.headers).toMatchObject({ 'oc-total-length': String(big.length), overwrite: 'F' });
    expect(requests('PUT', /\/files\/alice\/Chunked\/big\.bin$/)).toEqual([]);
    expect(fake.uploads.size).toBe(0);

    fake.server.inject({
      kind: 'status',
      status: 500,
      times: 100,
      match: { method: 'PUT', path: /\/uploads\// },
    });
    const failed = await failureOf(writer.putFile(['again.bin'], incoming(big), 'ignore'));
    expect(failed.status).toBe(502);
    expect(requests('DELETE', /\/uploads\/alice\/presqt-/)).toHaveLength(1);
    expect(fake.uploads.size).toBe(0);
    expect(fake.file('alice', 'Chunked/again.bin')).toBeUndefined();
  });

  it('waits out 423 Locked, and reports a lock that stays with 503 naming it', async () => {
    const project = await session.createProject('Locked');
    const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
    fake.server.inject({ kind: 'status', status: 423, times: 2, match: { method: 'PUT' } });
    expect((await writer.putFile(['a.txt'], incoming('a'), 'ignore')).outcome).toBe('created');
    fake.server.inject({ kind: 'status', status: 423, times: 100, match: { method: 'PUT' } });
    const stayed = await failureOf(writer.putFile(['b.txt'], incoming('b'), 'ignore'));
    expect(stayed.status).toBe(503);
    expect(stayed.message).toMatch(/Locked\/b\.txt' stayed locked at WebDAV \(423 Locked/);
  });

  it('refuses to overwrite a file that appeared since the folder was listed (412), and leaves it', async () => {
    const project = await session.createProject('Raced');
    const writer = await session.openWriter(project.id, { newProject: false, message: 'x' });
    await writer.putFile(['first.txt'], incoming('1'), 'ignore');
    fake.seedProject('alice', 'Raced', { 'late.txt': 'theirs' });
    const refused = await failureOf(writer.putFile(['late.txt'], incoming('ours'), 'ignore'));
    expect(refused).toMatchObject({ status: 409, message: expect.stringMatching(/412 Precondition Failed/) });
    expect(fake.file('alice', 'Raced/late.txt')?.bytes.toString()).toBe('theirs');
  });

  it('replaces a changed file by a PUT beside it and a MOVE over it, the old bytes kept when the MOVE fails', async () => {
    const id = fake.seedProject('alice', 'Updated', { 'r.txt': 'old' });
    const writer = await session.openWriter(id, { newProject: false, message: 'x' });
    fake.server.inject({ kind: 'status', status: 500, times: 100, match: { method: 'MOVE' } });
    expect((await failureOf(writer.putFile(['r.txt'], incoming('new'), 'update'))).status).toBe(502);
    expect(fake.file('alice', 'Updated/r.txt')?.bytes.toString()).toBe('old');
    expect([...fake.nodes.keys()].filter((key) => key.includes('.presqt-upload-'))).toEqual([]);
    fake.server.clearFaults();
    expect((await writer.putFile(['r.txt'], incoming('new'), 'update')).outcome).toBe('updated');
    expect(fake.file('alice', 'Updated/r.txt')?.bytes.toString()).toBe('new');
  });

  it('reads through 429 with and without Retry-After, 503, and a body cut off mid-file', async () => {
    const content = randomBytes(300_000);
    const id = fake.seedProject('alice', 'Faulty', { 'f.bin': content });
    fake.server.inject({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '0' },
      times: 1,
      match: { method: 'PROPFIND' },
    });
    fake.server.inject({ kind: 'status', status: 429, times: 1, match: { method: 'PROPFIND' } });
    fake.server.inject({ kind: 'status', status: 503, times: 1, match: { method: 'PROPFIND' } });
    const [file] = await files(id);
    fake.server.inject({ kind: 'cut', afterBytes: 100_000, match: { method: 'GET' } });
    expect(md5(await readAll(await file.open()))).toBe(md5(content));
    expect(requests('GET', /f\.bin/).map((r) => r.headers.range)).toEqual([
      undefined,
      expect.stringMatching(/^bytes=100000-/),
    ]);
  });

  it('never sends the token to another host a download redirects to', async () => {
    const elsewhere = new FakeServer('storage');
    elsewhere.route('GET', '/blob', (_request, answer) => answer.send(200, Buffer.from('moved')));
    await elsewhere.start();
    try {
      const id = fake.seedProject('alice', 'Redirected', { 'r.txt': 'here' });
      const [file] = await files(id);
      fake.server.inject({
        kind: 'status',
        status: 302,
        headers: { location: `${elsewhere.url}/blob` },
        match: { method: 'GET' },
      });
      expect((await readAll(await file.open())).toString()).toBe('moved');
      expect(elsewhere.requests).toHaveLength(1);
      expect(elsewhere.requests[0].headers.authorization).toBeUndefined();
    } finally {
      await elsewhere.stop();
    }
  });

  it('checks its options: an api_url, {user} at most once, uploads at the same origin', () => {
    expect(
      webdavConnector.validateOptions({ api_url: 'https://cloud.example.org/remote.php/dav/files/{user}/' }),
    ).toEqual([]);
    expect(webdavConnector.validateOptions({})).toEqual([
      expect.stringMatching(/options\.api_url is required/),
    ]);
    expect(webdavConnector.validateOptions({ api_url: 'https://a.example/{user}/{user}/' })).toEqual([
      expect.stringMatching(/may name \{user\} once/),
    ]);
    expect(
      webdavConnector.validateOptions({
        api_url: 'https://a.example/dav/',
        uploads_url: 'https://b.example/up/',
      }),
    ).toEqual([expect.stringMatching(/same origin|origin of options\.api_url/)]);
    expect(webdavConnector.validateOptions({ api_url: 'https://u:p@a.example/', chunk_mib: 1 })).toHaveLength(
      2,
    );
    // the old name is no alias: nothing shipped with it
    expect(webdavConnector.validateOptions({ url: 'https://a.example/{user}/' })).toEqual([
      expect.stringMatching(/options\.url is not a known option/),
      expect.stringMatching(/options\.api_url is required/),
    ]);
  });
});
