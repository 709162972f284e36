import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import archiver from 'archiver';
import type { Connector, ConnectorSession, RemoteFile } from '@app/connectors/connector';
import { dataverseConnector, type DataverseOptions } from '@app/connectors/dataverse';
import { nativeContent } from '@app/connectors/dataverse/native-upload';
import { DataverseFake } from '../fakes/dataverse/dataverse-fake';
import type { ChecksumType, User } from '../fakes/dataverse/model';
import type { ZipReader } from '../fakes/dataverse/common';
import { connectorContext, TEST_UPSTREAM } from '../support/connector-context';
import { failureOf, readAll, statusOf } from '../support/connector-failures';
import { countedFile } from '../support/incoming-file';
import { RepeatedBlockCheck, repeatedBlock } from '../support/repeated-block';

// Dataverse serves an OpenAPI document generated from its JAX-RS annotations; it describes no answer bodies,
// so the fake's JSON follows JsonPrinter in IQSS/dataverse (each printer cites it) and is not checked against one.

const hash = (algorithm: string, content: string | Buffer) =>
  createHash(algorithm).update(content).digest('hex');
const ALGORITHMS: Record<ChecksumType, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-512': 'sha512',
};

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const archive = archiver('zip');
  const chunks: Buffer[] = [];
  archive.on('data', (chunk: Buffer) => chunks.push(chunk));
  for (const [name, content] of Object.entries(files)) archive.append(Buffer.from(content), { name });
  await archive.finalize();
  return Buffer.concat(chunks);
}

describe('dataverse connector', () => {
  let fake: DataverseFake;
  let alice: User;

  beforeAll(async () => {
    fake = await new DataverseFake().start();
  });

  beforeEach(() => {
    fake.reset();
    alice = fake.addUser('alice-token', 'Alice', 'Example');
  });

  afterAll(async () => {
    await fake.stop();
  });

  function connect(options: Partial<DataverseOptions> = {}): Connector {
    return dataverseConnector.create(
      { api_url: fake.server.url, per_page: 5, ...options },
      connectorContext(),
    );
  }

  const openAlice = (options: Partial<DataverseOptions> = {}): Promise<ConnectorSession> =>
    connect(options).open('alice-token');

  async function files(session: ConnectorSession, id: string): Promise<RemoteFile[]> {
    const found: RemoteFile[] = [];
    for await (const entry of session.walk(id)) if (entry.kind === 'file') found.push(entry);
    return found;
  }

  /** The requests the fake received since `start`, as `METHOD path?query`. */
  const requestsSince = (start: number) =>
    fake.server.requests
      .slice(start)
      .map((request) => `${request.method} ${decodeURIComponent(request.url)}`);

  describe('options', () => {
    it('accepts none, and names each option that is wrong without quoting values', () => {
      expect(dataverseConnector.validateOptions({})).toEqual([]);
      expect(
        dataverseConnector.validateOptions({
          api_url: 'https://demo.dataverse.org/api/',
          collection: 'my_lab-2',
          per_page: 100,
        }),
      ).toEqual([]);
      const problems = dataverseConnector.validateOptions({
        api_url: 'https://u:s3cret@demo.dataverse.org/api',
        collection: 'my lab/data',
        per_page: 0,
        key: 's3cret-token',
      });
      expect(problems).toHaveLength(4);
      for (const option of ['api_url', 'collection', 'per_page', 'key'])
        expect(problems.some((problem) => problem.startsWith(`options.${option} `))).toBe(true);
      expect(problems.join(' ')).not.toContain('s3cret');
    });
  });

  describe('tokens', () => {
    it('sends the token in X-Dataverse-key, never in the query string, and names the user', async () => {
      fake.seed(alice, { title: 'Mine', files: { 'a.txt': 'a' } });
      const session = await openAlice();
      const { resources } = await session.listResources({ page: 1 });
      await readAll(await (await files(session, resources[0].id))[0].open());
      expect(session.username).toBe('Alice Example');
      for (const request of fake.server.requests) {
        expect(request.headers['x-dataverse-key']).toBe('alice-token');
        expect(request.url).not.toContain('alice-token');
      }
    });

    it('answers 401 for a key Dataverse does not know, and 403 (not 401) for a refusal of a known user', async () => {
      expect(await failureOf(connect().open('mallory-token'))).toMatchObject({ status: 401 });
      const bob = fake.addUser('bob-token', 'Bob', 'Other');
      const theirs = fake.seed(bob, { title: 'Theirs', files: { 'b.txt': 'b' }, published: true });
      const session = await openAlice();
      // Dataverse answers a known user's missing permission with 401 "... is not permitted ..."
      const refused = await failureOf(session.setKeywords(String(theirs.id), ['x']));
      expect(refused.status).toBe(403);
      fake.server.inject({
        kind: 'status',
        status: 401,
        body: { status: 'ERROR', message: 'User @alice is not permitted to perform requested action.' },
        match: { path: /\/editMetadata$/ },
      });
      const mine = fake.seed(alice, { title: 'Mine' });
      expect(await statusOf(session.setKeywords(String(mine.id), ['x']))).toBe(403);
    });
  });

  describe('listing', () => {
    it('lists the user’s datasets newest first, a published one with a draft once', async () => {
      const bob = fake.addUser('bob-token', 'Bob', 'Other');
      fake.seed(bob, { title: 'Not Mine', published: true });
      const first = fake.seed(alice, { title: 'First' });
      const edited = fake.seed(alice, { title: 'Published Then Edited', published: true });
      fake.state.draftOf(edited);
      const session = await openAlice();
      const page = await session.listResources({ page: 1 });
      expect(page.resources.map((resource) => resource.title)).toEqual(['Published Then Edited', 'First']);
      expect(page.resources.map((resource) => resource.id)).toEqual([String(edited.id), String(first.id)]);
    });

    it('pages through more datasets than Dataverse gives on one page of its own', async () => {
      for (let i = 1; i <= 23; i++) fake.seed(alice, { title: `Set ${String(i).padStart(2, '0')}` });
      const session = await openAlice();
      const titles: string[] = [];
      const first = await session.listResources({ page: 1 });
      expect(first.totalPages).toBe(5);
      for (let page = 1; page <= 5; page++)
        titles.push(...(await session.listResources({ page })).resources.map((resource) => resource.title));
      expect(titles).toEqual(Array.from({ length: 23 }, (_, i) => `Set ${String(23 - i).padStart(2, '0')}`));
      expect((await session.listResources({ page: 6 })).resources).toEqual([]);
    });

    it('finds a dataset by its persistent id, and another user’s published dataset by id', async () => {
      const mine = fake.seed(alice, { title: 'By DOI' });
      const bob = fake.addUser('bob-token', 'Bob', 'Other');
      const open = fake.seed(bob, { title: 'Open Data', published: true });
      const hidden = fake.seed(bob, { title: 'Hidden' });
      const session = await openAlice();
      const search = (value: string) => session.listResources({ search: { filter: 'id', value }, page: 1 });
      expect((await search(mine.persistentId)).resources.map((resource) => resource.id)).toEqual([
        String(mine.id),
      ]);
      expect((await search(String(open.id))).resources.map((resource) => resource.title)).toEqual([
        'Open Data',
      ]);
      expect((await search(String(hidden.id))).resources).toEqual([]);
    });
  });

  describe('versions', () => {
    it('shows the draft first, and another user’s published dataset as read-only', async () => {
      const edited = fake.seed(alice, { title: 'Edited', files: { 'v1.txt': 'one' }, published: true });
      fake.state.draftOf(edited).files.pop();
      const session = await openAlice();
      const detail = await session.getResource(String(edited.id));
      expect(detail.children).toEqual([]);
      expect(detail.extra).toMatchObject({ versionState: 'DRAFT', version: 'DRAFT' });
      expect(detail.readOnly).toBeUndefined();

      const bob = fake.addUser('bob-token', 'Bob', 'Other');
      const theirs = fake.seed(bob, { title: 'Theirs', files: { 'b.txt': 'b' }, published: true });
      fake.state
        .draftOf(theirs)
        .files.push({ ...fake.state.draftOf(theirs).files[0], label: 'draft-only.txt' });
      const seen = await session.getResource(String(theirs.id));
      expect(seen.children.map((child) => child.title)).toEqual(['b.txt']);
      expect(seen.readOnly).toMatch(/may read .* but not change it/);
      expect(await statusOf(session.openWriter(String(theirs.id), { newProject: false, message: 'x' }))).toBe(
        403,
      );
    });
  });

  describe('checksums', () => {
    it.each(['MD5', 'SHA-1', 'SHA-256', 'SHA-512'] as ChecksumType[])(
      'reports and verifies the installation’s %s',
      async (type) => {
        fake.checksumType = type;
        const algorithm = ALGORITHMS[type];
        const seeded = fake.seed(alice, { title: 'Summed', files: { 'a.txt': 'alpha' } });
        const session = await openAlice();
        const [file] = await files(session, String(seeded.id));
        expect(
          await file.sourceHashes(dataverseConnector.create({}, connectorContext()).hashAlgorithms),
        ).toEqual({
          [algorithm]: hash(algorithm, 'alpha'),
        });
        const writer = await session.openWriter(String(seeded.id), { newProject: false, message: 'x' });
        const stored = await writer.putFile(['b.txt'], countedFile('beta'), 'ignore');
        expect(stored.hashes).toEqual({ [algorithm]: hash(algorithm, 'beta') });
        const detail = await session.getResource(stored.id);
        expect(detail.extra.checksum).toEqual({ type, value: hash(algorithm, 'beta') });
        expect(detail.hashes).toEqual({
          md5: type === 'MD5' ? hash('md5', 'beta') : null,
          sha256: type === 'SHA-256' ? hash('sha256', 'beta') : null,
        });
      },
    );
  });

  describe('tabular files', () => {
    const csv = 'site,depth\nreef,12\nlagoon,3\n';

    it('walks an ingested file as it was deposited, and downloads its saved original', async () => {
      const seeded = fake.seed(alice, {
        title: 'Tables',
        files: { 'data/depths.csv': csv },
        ingested: ['data/depths.csv'],
      });
      const session = await openAlice();
      const [file] = await files(session, String(seeded.id));
      expect(file.path).toBe('Tables/data/depths.csv');
      expect(file.size).toBe(csv.length);
      expect((await readAll(await file.open())).toString()).toBe(csv);
      expect(await file.sourceHashes(['md5'])).toEqual({ md5: hash('md5', csv) });
      expect(fake.server.requests.at(-1)?.url).toMatch(/\/access\/datafile\/\d+\?format=original$/);
      const detail = await session.getResource(String(seeded.id));
      const folder = await session.getResource(detail.children[0].id);
      expect(folder.children.map((child) => child.title)).toEqual(['depths.csv']);
      expect((await session.getResource(folder.children[0].id)).extra).toMatchObject({
        size: csv.length,
        ingested: { archivalName: 'depths.tab' },
      });
    });

    it('keeps a CSV it uploads byte for byte after Dataverse ingested it, and writes on while it ingests', async () => {
      fake.ingestMs = 200;
      const session = await openAlice();
      const project = await session.createProject('Ingested');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      await writer.putFile(['depths.csv'], countedFile(csv), 'ignore');
      expect(fake.state.datasets.get(Number(project.id))!.locks.map((lock) => lock.type)).toEqual(['Ingest']);
      await writer.putFile(['notes.txt'], countedFile('notes'), 'ignore');
      await sleep(250);
      const stored = [...fake.state.files.values()].find((file) => file.original);
      expect(stored?.content.toString()).not.toBe(csv);
      const walked = await files(session, project.id);
      expect(walked.map((file) => file.path)).toEqual(['Ingested/depths.csv', 'Ingested/notes.txt']);
      expect((await readAll(await walked[0].open())).toString()).toBe(csv);
      // the same bytes again: a duplicate, recognised under its deposited name
      const again = await session.openWriter(project.id, { newProject: false, message: 'x' });
      expect((await again.putFile(['depths.csv'], countedFile(csv), 'update')).outcome).toBe('ignored');
    });
    it('downloads as deposited a CSV listed while Dataverse ingested it and ingested by the time it is read', async () => {
      fake.ingestMs = 200;
      const session = await openAlice();
      const project = await session.createProject('Racing');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      await writer.putFile(['depths.csv'], countedFile(csv), 'ignore');
      const [listed] = await files(session, project.id);
      expect(listed.path).toBe('Racing/depths.csv');
      await sleep(250);
      expect([...fake.state.files.values()].find((file) => file.original)?.content.toString()).not.toBe(csv);
      expect((await readAll(await listed.open())).toString()).toBe(csv);
      expect(await listed.sourceHashes(['md5'])).toEqual({ md5: hash('md5', csv) });
    });
  });

  describe('zips', () => {
    // ZipInputStream: a Dataverse before IQSS/dataverse#10899, which refuses a stored entry with a data descriptor
    it.each<ZipReader>(['ZipFile', 'ZipInputStream'])(
      'sends a zip inside another, so that Dataverse reading zips with %s keeps it as a zip and not as its entries',
      async (reader) => {
        fake.zipReader = reader;
        try {
          const zip = await zipOf({ 'inner/a.txt': 'a', 'b.txt': 'b' });
          const session = await openAlice();
          const project = await session.createProject(`Zipped ${reader}`);
          const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
          const stored = await writer.putFile(['bundle.zip'], countedFile(zip), 'ignore');
          expect(stored.hashes).toEqual({ md5: hash('md5', zip) });
          const [file] = await files(session, project.id);
          expect(file.path).toBe(`Zipped ${reader}/bundle.zip`);
          expect((await readAll(await file.open())).equals(zip)).toBe(true);
        } finally {
          fake.zipReader = 'ZipFile';
        }
      },
    );

    it('is needed: the fake, as Dataverse, unpacks a zip uploaded as it is', async () => {
      const zip = await zipOf({ 'inner/a.txt': 'a', 'b.txt': 'b' });
      const dataset = fake.seed(alice, { title: 'Raw' });
      const boundary = 'x-boundary';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bundle.zip"\r\n\r\n`,
        ),
        zip,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const response = await fetch(`${fake.server.url}/datasets/${dataset.id}/add`, {
        method: 'POST',
        headers: {
          'x-dataverse-key': 'alice-token',
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
      });
      expect(response.status).toBe(200);
      const labels = fake.state.datasets
        .get(dataset.id)!
        .draft!.files.map((entry) => `${entry.directoryLabel ?? ''}/${entry.label}`);
      expect(labels.sort()).toEqual(['/b.txt', 'inner/a.txt']);
    });

    it('ends the wrapping zip with the failure of a zip whose source fails midway, never as a whole zip', async () => {
      const content = await nativeContent('cut.zip', {
        size: 10_000,
        open: async () =>
          Readable.from(
            (async function* () {
              yield Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]);
              throw new Error('the source went away');
            })(),
          ),
      });
      expect(content.wrapped).toBe(true);
      await expect(readAll(await content.part.open())).rejects.toThrow('the source went away');
    });

    it('wraps a zip past 4 GiB in a zip that a stream reader extracts whole, from a pipe', async () => {
      const size = 2 ** 32 + 10;
      // a random block of 1 MiB that starts as a zip does, over and over
      const block = randomBytes(1 << 20);
      Buffer.from([0x50, 0x4b, 0x03, 0x04]).copy(block);
      const content = await nativeContent('big.zip', {
        size,
        open: async () => repeatedBlock(block, size),
      });
      expect(content.wrapped).toBe(true);
      // libarchive's streaming reader knows the entry from its local header alone and checks its CRC-32 and
      // sizes against the data descriptor; it prints the entry's name (-v) to its standard error. It reads 1 MiB
      // at a time (-b, in 512-byte records), not 10 KiB: the same reader, a sixth of the reads and writes
      const reader = spawn('bsdtar', ['-xvOf', '-', '-b', '2048'], { stdio: ['pipe', 'pipe', 'pipe'] });
      const extracted = new RepeatedBlockCheck(block);
      reader.stdout.on('data', (chunk: Buffer) => extracted.add(chunk));
      const errors: Buffer[] = [];
      reader.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
      const exited = new Promise<number | null>((resolve) => reader.on('close', resolve));
      // a reader that gives up closes its input: its exit status and message say why
      const written = pipeline(await content.part.open(), reader.stdin).catch(() => undefined);
      const code = await exited;
      await written;
      expect(Buffer.concat(errors).toString()).toBe('x big.zip\n');
      expect(code).toBe(0);
      expect(content.part.filename).toBe('big.zip.zip');
      expect({ read: extracted.read, same: extracted.same }).toEqual({ read: size, same: true });
    }, 180_000);
  });

  describe('uploads', () => {
    it('makes a draft dataset with the citation metadata Dataverse requires, in the configured collection, never publishing', async () => {
      fake.state.collections.add('coral-lab');
      const start = fake.server.requests.length;
      const session = await openAlice({ collection: 'coral-lab' });
      const project = await session.createProject('Field Season');
      const dataset = fake.state.datasets.get(Number(project.id))!;
      expect(dataset.collection).toBe('coral-lab');
      const value = (name: string) => dataset.draft!.fields.find((field) => field.typeName === name)?.value;
      expect(value('title')).toBe('Field Season');
      expect(JSON.stringify(value('author'))).toContain('Example, Alice');
      expect(JSON.stringify(value('datasetContact'))).toContain('alice@example.org');
      expect(value('subject')).toEqual(['Other']);
      expect(requestsSince(start).filter((line) => /:publish/.test(line))).toEqual([]);
      expect(
        await statusOf(openAlice({ collection: 'nowhere' }).then((other) => other.createProject('X'))),
      ).toBe(502);
    });

    it('refuses folder and file names Dataverse would change, before sending anything', async () => {
      const dataset = fake.seed(alice, { title: 'Names' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      const start = fake.server.requests.length;
      for (const path of [
        ['raw (2024)', 'a.txt'],
        ['.hidden', 'a.txt'],
        ['data', 'a:b.txt'],
        ['données', 'a.txt'],
      ]) {
        const failure = await failureOf(writer.putFile(path, countedFile('a'), 'ignore'));
        expect(failure.status).toBe(400);
        expect(failure.message).toContain('cannot be used as a name on Dataverse');
      }
      expect(requestsSince(start)).toEqual([]);
      expect(
        (await writer.putFile(['raw data_2024-v1.0', 'a (copy).txt'], countedFile('a'), 'ignore')).outcome,
      ).toBe('created');
    });

    it('writes into a folder of a dataset, which takes the files’ paths there', async () => {
      const dataset = fake.seed(alice, { title: 'Deep', files: { 'data/old.txt': 'old' } });
      const session = await openAlice();
      const folder = (await session.getResource(String(dataset.id))).children[0];
      const writer = await session.openWriter(folder.id, { newProject: false, message: 'x' });
      const stored = await writer.putFile(['raw', 'new.txt'], countedFile('new'), 'ignore');
      expect(stored.path).toBe('/Deep/data/raw/new.txt');
      expect((await files(session, String(dataset.id))).map((file) => file.path)).toEqual([
        'Deep/data/old.txt',
        'Deep/data/raw/new.txt',
      ]);
    });
  });

  describe('locks', () => {
    it('waits while a workflow holds the dataset, then writes', async () => {
      const dataset = fake.seed(alice, { title: 'Busy' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      fake.lock(dataset, 'Workflow', 400);
      const start = Date.now();
      const stored = await writer.putFile(['a.txt'], countedFile('a'), 'ignore');
      expect(stored.outcome).toBe('created');
      expect(Date.now() - start).toBeGreaterThanOrEqual(350);
      fake.lock(dataset, 'EditInProgress', 300);
      expect(await session.setKeywords(String(dataset.id), ['after'])).toEqual(['after']);
      expect(requestsSince(0).some((line) => line.endsWith(`/datasets/${dataset.id}/locks`))).toBe(true);
    });

    it('fails clearly when the lock outlasts the wait, and at once for a dataset in review, never as a bad token', async () => {
      const dataset = fake.seed(alice, { title: 'Stuck' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      fake.lock(dataset, 'Workflow');
      const start = Date.now();
      const stuck = await failureOf(writer.putFile(['a.txt'], countedFile('a'), 'ignore'));
      expect(stuck.status).toBe(503);
      expect(stuck.message).toMatch(/stayed locked \(Workflow\)/);
      expect(Date.now() - start).toBeGreaterThanOrEqual(TEST_UPSTREAM.maxWaitMs - 100);
      expect(await failureOf(session.setKeywords(String(dataset.id), ['x']))).toMatchObject({ status: 503 });
      fake.unlock(dataset);
      fake.lock(dataset, 'InReview');
      const reviewed = await failureOf(writer.putFile(['b.txt'], countedFile('b'), 'ignore'));
      expect(reviewed.status).toBe(409);
      expect(reviewed.message).toMatch(/in review/);
    });

    it('reports an upload refused for another reason, once no lock explains it', async () => {
      const dataset = fake.seed(alice, { title: 'Refused' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      fake.server.inject({
        kind: 'status',
        status: 400,
        times: 2,
        body: { status: 'ERROR', message: 'Failed to add file to dataset.' },
        match: { path: /\/add$/ },
      });
      const failure = await failureOf(writer.putFile(['a.txt'], countedFile('a'), 'ignore'));
      expect(failure).toMatchObject({ status: 502 });
      expect(failure.message).toContain('Failed to add file to dataset.');
    });

    it('takes back a dataset made for a job once the ingest it started lets it', async () => {
      fake.ingestMs = 300;
      const session = await openAlice();
      const project = await session.createProject('Abandoned');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      await writer.putFile(['t.csv'], countedFile('a,b\n1,2\n'), 'ignore');
      await writer.abandon!();
      expect(fake.state.datasets.has(Number(project.id))).toBe(false);
    });
  });

  describe('direct upload', () => {
    it('sends the bytes to the store, never the token, and registers them with the installation’s checksum', async () => {
      fake.directUpload = { partSize: 1 << 20 };
      fake.checksumType = 'SHA-256';
      const dataset = fake.seed(alice, { title: 'Direct' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      const small = countedFile('small file');
      const stored = await writer.putFile(['small.txt'], small, 'ignore');
      expect(stored.hashes).toEqual({ md5: hash('md5', 'small file') });
      expect(small.opened).toBe(1);
      const big = randomBytes((2 << 20) + 12345);
      const large = countedFile(big, 64 << 10);
      await writer.putFile(['data', 'big.bin'], large, 'ignore');
      expect(large.opened).toBe(1);
      const puts = fake.store.server.requests.filter((request) => request.method === 'PUT');
      expect(puts).toHaveLength(4);
      expect(puts[0].headers['x-amz-tagging']).toBe('dv-state=temp');
      for (const request of fake.store.server.requests) {
        expect(request.headers['x-dataverse-key']).toBeUndefined();
        expect(request.url).not.toContain('alice-token');
      }
      const walked = await files(session, String(dataset.id));
      expect(walked.map((file) => file.path)).toEqual(['Direct/small.txt', 'Direct/data/big.bin']);
      expect((await readAll(await walked[1].open())).equals(big)).toBe(true);
      expect(await walked[1].sourceHashes(['sha256'])).toEqual({ sha256: hash('sha256', big) });
    });

    it('sends a part again after a failure, and aborts the upload when storage stays down', async () => {
      fake.directUpload = { partSize: 1 << 20 };
      const dataset = fake.seed(alice, { title: 'Flaky' });
      const session = await openAlice();
      const writer = await session.openWriter(String(dataset.id), { newProject: false, message: 'x' });
      const big = randomBytes((1 << 20) * 2 + 7);
      fake.store.server.inject({
        kind: 'status',
        status: 503,
        times: 1,
        match: { path: /./, method: 'PUT' },
      });
      fake.store.server.inject({ kind: 'reset', times: 1, match: { path: /./, method: 'PUT' } });
      const stored = await writer.putFile(['big.bin'], countedFile(big, 100_000), 'ignore');
      expect(stored.outcome).toBe('created');
      const [file] = await files(session, String(dataset.id));
      expect((await readAll(await file.open())).equals(big)).toBe(true);
      expect(await file.sourceHashes(['md5'])).toEqual({ md5: hash('md5', big) });

      fake.store.server.inject({ kind: 'status', status: 500, times: 100, match: { method: 'PUT' } });
      expect(await statusOf(writer.putFile(['other.bin'], countedFile(big), 'ignore'))).toBe(502);
      expect(requestsSince(0).some((line) => line.startsWith('DELETE /api/datasets/mpupload'))).toBe(true);
    });
  });

  describe('downloads', () => {
    it('follows a redirect to the store without the token, and resumes a body cut off midway', async () => {
      const big = randomBytes(3 << 20);
      const seeded = fake.seed(alice, { title: 'Far', files: { 'big.bin': big } });
      fake.redirectDownloads = true;
      const session = await openAlice();
      const [file] = await files(session, String(seeded.id));
      fake.store.server.inject({ kind: 'cut', afterBytes: 1 << 20 });
      expect((await readAll(await file.open())).equals(big)).toBe(true);
      const gets = fake.store.server.requests.filter((request) => request.method === 'GET');
      expect(gets.length).toBeGreaterThanOrEqual(2);
      expect(gets.at(-1)?.headers.range).toMatch(new RegExp(`^bytes=${1 << 20}-`));
      for (const request of fake.store.server.requests)
        expect(request.headers['x-dataverse-key']).toBeUndefined();
    });
  });

  describe('keywords', () => {
    it('writes the citation block’s keywords, and the subjects they name in place of "Other"', async () => {
      const session = await openAlice();
      const project = await session.createProject('Subjects');
      expect(await session.setKeywords(project.id, ['chemistry', 'coral'])).toEqual(['chemistry', 'coral']);
      const draft = fake.state.datasets.get(Number(project.id))!.draft!;
      expect(draft.fields.find((field) => field.typeName === 'subject')?.value).toEqual(['Chemistry']);
      expect(await session.setKeywords(project.id, [])).toEqual([]);
      expect(await statusOf(session.keywords(`${project.id}:1`))).toBe(400);
    });
  });

  describe('faults', () => {
    it('reads through 429 with and without Retry-After, and through 5xx', async () => {
      fake.seed(alice, { title: 'Patient', files: { 'a.txt': 'a' } });
      const session = await openAlice();
      fake.server.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' }, times: 1 });
      fake.server.inject({ kind: 'status', status: 429, times: 1 });
      fake.server.inject({ kind: 'status', status: 503, times: 1 });
      const start = Date.now();
      expect((await session.listResources({ page: 1 })).resources).toHaveLength(1);
      expect(Date.now() - start).toBeGreaterThanOrEqual(900);
      fake.server.inject({ kind: 'status', status: 502, times: TEST_UPSTREAM.retries + 1 });
      expect(await failureOf(session.listResources({ page: 1 }))).toMatchObject({ status: 502 });
    });
  });
});
