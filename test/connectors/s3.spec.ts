import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Connector, ConnectorSession, RemoteFile } from '@app/connectors/connector';
import { s3Connector, type S3Options } from '@app/connectors/s3';
import { FakeServer } from '../fakes/fake-server';
import { S3ChecksumProxy } from '../fakes/s3/s3-proxy';
import { S3RVER_TOKEN, S3Seeder } from '../fakes/s3/s3-seeder';
import { connectorContext, TEST_UPSTREAM } from '../support/connector-context';
import { failureOf, readAll } from '../support/connector-failures';
import { RepeatedBlockCheck, repeatedBlock } from '../support/repeated-block';
import { startS3Server, type S3Server } from '../support/s3-server';

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');
const idOf = (path: string) => Buffer.from(path).toString('base64url');
const incoming = (bytes: Buffer) => ({ size: bytes.length, open: async () => Readable.from([bytes]) });
/** larger than one 8 MiB part: stored by a multipart upload */
const MULTIPART = randomBytes(9 << 20);

describe('s3 connector', () => {
  let server: S3Server;
  let proxy: S3ChecksumProxy;
  /** writes straight to s3rver, without the proxy's checksums */
  let plain: S3Seeder;

  beforeAll(async () => {
    server = await startS3Server();
    proxy = await new S3ChecksumProxy(server.endpoint).start();
    plain = new S3Seeder(server.endpoint, server.bucket, 'spec/', false);
  });

  beforeEach(async () => {
    proxy.checksums = true;
    proxy.clearFaults();
    await plain.reset();
  });

  afterAll(async () => {
    plain.close();
    await proxy.stop();
    await server.stop();
  });

  function connect(options: Partial<S3Options> = {}): Connector {
    return s3Connector.create(
      {
        api_url: proxy.url,
        bucket: server.bucket,
        prefix: 'spec/',
        path_style: true,
        per_page: 5,
        ...options,
      },
      connectorContext(),
    );
  }

  const open = (options: Partial<S3Options> = {}): Promise<ConnectorSession> =>
    connect(options).open(S3RVER_TOKEN);

  async function walkedFiles(session: ConnectorSession, id: string): Promise<RemoteFile[]> {
    const files: RemoteFile[] = [];
    for await (const entry of session.walk(id)) if (entry.kind === 'file') files.push(entry);
    return files;
  }

  describe('options and tokens', () => {
    it('names each option that is wrong, and asks for path-style addressing without a bucket', () => {
      expect(s3Connector.validateOptions({ bucket: 'ok-bucket' })).toEqual([]);
      expect(
        s3Connector.validateOptions({ api_url: 'ftp://x', bucket: 'No_Such', prefix: '/a', per_page: 5000 }),
      ).toEqual([
        'options.api_url must be an http or https URL',
        'options.bucket must be a bucket name (S3 naming rules)',
        'options.prefix must be a key prefix without a leading or doubled slash',
        'options.per_page must be an integer from 1 to 1000',
      ]);
      expect(s3Connector.validateOptions({})).toEqual([
        'options.path_style must be true when no bucket is given (each bucket is a project)',
      ]);
    });

    it('answers 401 for a token that is not a key pair, or whose secret S3 refuses, never quoting it', async () => {
      expect((await failureOf(connect().open('no-colon-here'))).status).toBe(401);
      // s3rver checks the key id, not the signature: a key it does not know (InvalidAccessKeyId)
      const refused = await failureOf(connect().open('MALLORY:not-the-secret-42'));
      expect(refused.status).toBe(401);
      expect(refused.message).not.toContain('not-the-secret-42');
      expect((await open()).username).toBe('S3RVER');
    });

    it('sends the signature only to the endpoint: a redirect elsewhere gets none', async () => {
      const elsewhere = await new FakeServer('elsewhere').start();
      elsewhere.route('GET', '/{path}', (_request, answer) => answer.empty(403), ['path']);
      try {
        await plain.put('spec/Moved/file.txt', 'bytes');
        const session = await open();
        const [file] = await walkedFiles(session, idOf('Moved/'));
        proxy.inject({
          kind: 'status',
          status: 307,
          headers: { location: `${elsewhere.origin}/presqt-jobs/spec/Moved/file.txt` },
          match: { method: 'GET', path: /\/spec\/Moved\/file\.txt$/ },
        });
        await expect(file.open()).rejects.toThrow();
        expect(elsewhere.requests.length).toBe(1);
        const sent = elsewhere.requests[0].headers;
        expect(sent.authorization).toBeUndefined();
        expect(sent['x-amz-security-token']).toBeUndefined();
      } finally {
        await elsewhere.stop();
      }
    });
  });

  describe('checksums', () => {
    it('reads a single-part object’s ETag as its md5 where the server keeps no SHA-256 (s3rver)', async () => {
      await plain.put('spec/Plain/a.txt', 'hello');
      const session = await open({ api_url: server.endpoint });
      const file = await session.getResource(idOf('Plain/a.txt'));
      expect(file.hashes).toEqual({ md5: md5('hello'), sha256: null });
      const [walked] = await walkedFiles(session, idOf('Plain/'));
      expect(walked.checksumsOfBytes).toBeUndefined();
      expect(await walked.sourceHashes(['sha256', 'md5'])).toEqual({ md5: md5('hello') });
    });

    it('reports the full-object ChecksumSHA256 of a single-part upload, and what it stored', async () => {
      const session = await open();
      const project = await session.createProject('Checked');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const stored = await writer.putFile(['a.txt'], incoming(Buffer.from('hello')), 'ignore');
      expect(stored.hashes).toEqual({ sha256: sha256('hello'), md5: md5('hello') });
      expect((await session.getResource(stored.id)).hashes).toEqual({
        sha256: sha256('hello'),
        md5: md5('hello'),
      });
    });

    it('takes neither a multipart upload’s composite checksum nor its ETag for the file’s, and reads its bytes instead', async () => {
      const session = await open();
      const project = await session.createProject('Large');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const stored = await writer.putFile(['big.bin'], incoming(MULTIPART), 'ignore');
      // S3 checked each part's SHA-256; the object's is COMPOSITE (`<base64>-2`), its ETag `<hex>-2`
      expect(stored.hashes).toEqual({});
      const keys = await plain.keys('spec/Large/');
      expect(keys).toEqual(['spec/Large/', 'spec/Large/big.bin']);
      expect((await session.getResource(stored.id)).hashes).toEqual({ md5: null, sha256: null });
      const [file] = await walkedFiles(session, project.id);
      expect(await file.sourceHashes(['sha256', 'md5'])).toEqual({ sha256: sha256(MULTIPART) });
      expect(sha256(await readAll(await file.open()))).toBe(sha256(MULTIPART));
    });
  });

  describe('listing', () => {
    it('pages the prefixes with continuation tokens, passing over objects beside the projects', async () => {
      // objects beside the projects, listed first: the first call's keys hold no project
      for (const loose of ['0', '1', '2', '3']) await plain.put(`spec/${loose}-loose.txt`, 'not a project');
      for (const name of ['A', 'B', 'C', 'D', 'E', 'F', 'G']) await plain.put(`spec/${name}/x.txt`, name);
      const session = await open({ per_page: 3 });
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(await session.listResources({ page }));
      expect(pages.map((page) => page.resources.map((resource) => resource.title))).toEqual([
        ['A', 'B', 'C'],
        ['D', 'E', 'F'],
        ['G'],
      ]);
      expect(pages.map((page) => page.totalPages)).toEqual([2, 3, 3]);
      const listed = proxy.requests.filter(
        (request) => request.method === 'GET' && /list-type=2/.test(request.url),
      );
      expect(listed.some((request) => /continuation-token=/.test(request.url))).toBe(true);
    });

    it('serves each bucket as a project without a bucket option, and makes a project a bucket', async () => {
      const session = await open({ bucket: undefined });
      const listed = await session.listResources({ page: 1 });
      expect(listed.resources.map((resource) => resource.title)).toContain(server.bucket);
      const made = await session.createProject('Fresh Project');
      expect(made.title).toBe('fresh-project');
      const writer = await session.openWriter(made.id, { newProject: true, message: 'x' });
      await writer.putFile(['data', 'a.txt'], incoming(Buffer.from('a')), 'ignore');
      const files = await walkedFiles(session, made.id);
      expect(files.map((file) => file.path)).toEqual(['fresh-project/data/a.txt']);
      await writer.abandon!();
      const after = await session.listResources({ page: 1 });
      expect(after.resources.map((resource) => resource.title)).not.toContain('fresh-project');
    });
  });

  describe('a 1 GiB object', () => {
    const GIB = 1 << 30;
    const block = randomBytes(1 << 20);
    /** 1 GiB made as it is read: one random MiB over and over, nothing of it on disk or held */
    const generated = () => ({ size: GIB, open: async () => repeatedBlock(block, GIB) });

    /** The largest growth of this process's resident memory while `work` runs, in MiB. */
    async function peakGrowthMiB(work: () => Promise<void>): Promise<number> {
      const start = process.memoryUsage().rss;
      let peak = start;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      try {
        await work();
      } finally {
        clearInterval(sampler);
      }
      return (Math.max(peak, process.memoryUsage().rss) - start) / (1 << 20);
    }

    it('streams up as a multipart upload and back down, byte for byte, memory flat', async () => {
      // s3rver assembles the parts before it answers CompleteMultipartUpload: longer than the tests' deadline
      const connector = s3Connector.create(
        { api_url: server.endpoint, bucket: server.bucket, prefix: 'spec/', path_style: true },
        connectorContext({ upstream: { ...TEST_UPSTREAM, timeoutMs: 120_000, deadlineMs: 120_000 } }),
      );
      const session = await connector.open(S3RVER_TOKEN);
      const project = await session.createProject('Huge');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'x' });
      const up = await peakGrowthMiB(async () => {
        await writer.putFile(['huge.bin'], generated(), 'ignore');
      });
      const downloaded = new RepeatedBlockCheck(block);
      const down = await peakGrowthMiB(async () => {
        const [file] = await walkedFiles(session, project.id);
        expect(file.size).toBe(GIB);
        for await (const chunk of (await file.open()) as AsyncIterable<Buffer>) downloaded.add(chunk);
      });
      expect({ read: downloaded.read, same: downloaded.same }).toEqual({ read: GIB, same: true });
      // 8 MiB parts, two in flight: a few parts' worth at most, whatever the size
      expect({ up: up < 160, down: down < 160 }).toEqual({ up: true, down: true });
      await writer.abandon!();
    }, 180_000);
  });

  // last: s3rver has no AbortMultipartUpload (405), and the upload it keeps breaks its later listings
  describe('a failed upload', () => {
    it('aborts a multipart upload that fails, leaving no object behind', async () => {
      const session = await open();
      const project = await session.createProject('Failing');
      const writer = await session.openWriter(project.id, { newProject: false, message: 'x' });
      proxy.inject({ kind: 'status', status: 500, times: 100, match: { method: 'PUT', path: /big\.bin$/ } });
      const failed = await failureOf(writer.putFile(['big.bin'], incoming(MULTIPART), 'ignore'));
      expect(failed).toMatchObject({ status: 502, message: expect.stringMatching(/S3 answered 500/) });
      const aborted = proxy.requests.filter(
        (request) => request.method === 'DELETE' && /uploadId=/.test(request.url),
      );
      expect(aborted.length).toBe(1);
      expect(await plain.keys('spec/Failing/')).toEqual(['spec/Failing/']);
    });
  });
});
