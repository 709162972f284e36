import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { FakeServer } from '../../fakes/fake-server';
import { makeBagZip } from '../../support/bags';
import {
  filesystemEntry,
  projectDigests,
  treeDigests,
  writeTargetsFile,
  writeTree,
} from '../../support/fs-fixtures';
import {
  binaryParser,
  downloadTo,
  extractZip,
  pollUntilDone,
  transferAndWait,
  verifyBagZip,
} from '../../support/jobs';
import { peakRssDuring, startStack, type Stack } from '../../support/stack';

/**
 * Every action of a remote target end to end: the real API and worker processes and Redis, the connector
 * against its fake upstream, a filesystem target (`lab`) as the other side of transfers. Each remote
 * connector runs it; its own e2e spec adds what is special to it.
 */

export interface RemoteTargetUnderTest {
  /** the fake upstream, already started: its faults and latency */
  fake: FakeServer;
  /** the target's entry of a targets file, its name `remote`, its connector's `api_url` at the fake */
  entry: Record<string, unknown>;
  token: string;
  badToken: string;
  /** Makes a top-level resource of the token's user at the fake, holding `files`; its id. */
  seedProject(title: string, files: Record<string, string | Buffer>): Promise<string>;
  /**
   * Makes a resource of another user that the token's user may read but not change (a published record, a
   * public project), holding `files`; its id. Where the target has such resources.
   */
  seedOthersPublished?(title: string, files: Record<string, string | Buffer>): Promise<string>;
  /** the names of the files the target itself holds in a resource (to see how a target without folders keeps one) */
  storedNames?(id: string): Promise<string[]>;
  /** the GET requests of the upstream that send a file's bytes to us */
  fileReads: RegExp;
  /** the requests that take a file's bytes from us (for a writable target) */
  fileWrites?: { method: string; path: RegExp };
  /** where an upstream serves or takes files on hosts of their own (FigShare's): the fakes of those hosts */
  readsHost?: FakeServer;
  writesHost?: FakeServer;
  /** where the target keeps files in Git LFS (RemoteSuiteOptions.lfs) */
  lfs?: LfsHooks;
  stop(): Promise<void>;
}

/** What a suite needs of a target that keeps files in Git LFS. */
export interface LfsHooks {
  /** Makes a top-level resource holding `files`, and `lfs` pushed through Git LFS (pointers in git); its id. */
  seedProject(
    title: string,
    files: Record<string, string | Buffer>,
    lfs: Record<string, Buffer>,
  ): Promise<string>;
  /** Replaces the bytes of the LFS object of `content` (its oid kept), as damaged storage would. */
  corrupt(content: Buffer, bytes: Buffer): void;
}

export interface RemoteSuiteOptions {
  /** a target the service only reads from (CurateND) */
  readOnly?: boolean;
  /** whether the target keeps checksums of its files (downloads then list nothing in fixity_unverified) */
  checksums?: boolean;
  /** whether the target keeps folders of its own (resources are seeded there with folders) */
  folders?: boolean;
  /** whether the target keeps files in Git LFS (the setup gives `lfs`) */
  lfs?: boolean;
  /** the largest file the target's writer takes (its Connector.fileSizeProblem), where it has a limit */
  largestFile?: number;
  /** whether the target has resources of other users that the user may read, not change (the setup gives seedOthersPublished) */
  othersPublished?: boolean;
}

const LAB_TOKEN = 'alice-token';
/** the lab project every transfer into the remote target starts from */
const SURVEY = Buffer.from('Survey').toString('base64url');

export function describeRemoteTarget(
  name: string,
  setup: () => Promise<RemoteTargetUnderTest>,
  {
    readOnly = false,
    checksums = true,
    folders = true,
    lfs = false,
    largestFile,
    othersPublished = false,
  }: RemoteSuiteOptions = {},
): void {
  const whenWritable = readOnly ? describe.skip : describe;
  const whenLfs = lfs ? describe : describe.skip;
  const whenLimited = largestFile !== undefined && !readOnly ? it : it.skip;
  const whenOthersPublished = othersPublished && !readOnly ? describe : describe.skip;

  describe(`${name} end to end (real API, worker and Redis, fake ${name})`, () => {
    let remote: RemoteTargetUnderTest;
    let stack: Stack;
    let http: ReturnType<typeof request>;
    let labRoot: string;
    const big = randomBytes(2 << 20);
    const tree = { 'README.md': '# Survey\n', 'data/big.bin': big, 'data/raw/values.csv': 'a,b\n1,2\n' };
    /** what is seeded at the target: the same files, flat where the target keeps no folders of its own */
    const seeded: Record<string, string | Buffer> = folders
      ? tree
      : { 'README.md': tree['README.md'], 'big.bin': big, 'values.csv': tree['data/raw/values.csv'] };
    const digests = (files: Record<string, string | Buffer>) =>
      Object.fromEntries(
        Object.entries(files).map(([path, content]) => [
          path,
          createHash('sha256').update(content).digest('hex'),
        ]),
      );

    const sourceHeaders = (token: string) => ({ 'presqt-source-token': token });
    const jobHeaders = (source: string, destination: string, duplicate = 'ignore') => ({
      'presqt-source-token': source,
      'presqt-destination-token': destination,
      'presqt-file-duplicate-action': duplicate,
      'presqt-keyword-action': 'none',
      'presqt-email-opt-in': '',
      'content-type': 'application/json',
    });

    /** Starts a transfer and waits for its end; the final job status response. */
    const transfer = (to: string, from: string, id: string, container?: string, duplicate = 'ignore') =>
      transferAndWait(stack.baseUrl, {
        to,
        from,
        id,
        container,
        sourceToken: from === 'lab' ? LAB_TOKEN : remote.token,
        destinationToken: to === 'lab' ? LAB_TOKEN : remote.token,
        duplicate,
      });

    const labTree = (id: string) => projectDigests(labRoot, 'alice', id);

    function writes(): { method: string; path: RegExp } {
      if (!remote.fileWrites) throw new Error(`the ${name} setup names no fileWrites`);
      return remote.fileWrites;
    }

    /** how many requests that take a file's bytes the upstream has had */
    function fileWritesSeen(): number {
      const { method, path } = writes();
      return writesHost().requests.filter(
        (request) => request.method === method && path.test(request.url.split('?')[0]),
      ).length;
    }

    function lfsHooks(): LfsHooks {
      if (!remote.lfs) throw new Error(`the ${name} setup gives no lfs hooks`);
      return remote.lfs;
    }

    /** The files of a finished download's bag, below its resource's folder, by sha256. */
    async function downloadedTree(id: string, title: string): Promise<Record<string, string>> {
      const zip = await http
        .get('/api_v1/job_status/download.zip/')
        .set(sourceHeaders(remote.token))
        .buffer(true)
        .parse(binaryParser)
        .expect(200);
      const file = await downloadTo(zip, 'download.zip');
      verifyBagZip(file, `remote_download_${id}`);
      return treeDigests(join(extractZip(file), `remote_download_${id}`, 'data', title));
    }

    async function download(id: string) {
      await http
        .get(`/api_v1/targets/remote/resources/${id}.zip/`)
        .set({ ...sourceHeaders(remote.token), 'presqt-email-opt-in': '' })
        .expect(202);
      const done = await pollUntilDone(
        stack.baseUrl,
        '/api_v1/job_status/download.json/',
        sourceHeaders(remote.token),
      );
      return done;
    }

    beforeAll(async () => {
      remote = await setup();
      labRoot = mkdtempSync(join(tmpdir(), 'presqt-lab-'));
      writeTree(
        labRoot,
        Object.fromEntries(Object.entries(tree).map(([path, content]) => [`alice/Survey/${path}`, content])),
      );
      const partners = { transfer_in: ['lab'], transfer_out: ['lab'] };
      const targetsFile = writeTargetsFile([
        filesystemEntry('lab', labRoot, {
          supported_transfer_partners: { transfer_in: ['remote'], transfer_out: ['remote'] },
        }),
        {
          ...remote.entry,
          name: 'remote',
          supported_transfer_partners: readOnly ? { transfer_in: [], transfer_out: ['lab'] } : partners,
        },
      ]);
      stack = await startStack({
        env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRY_BASE_MS: '20', UPSTREAM_MAX_WAIT_MS: '5000' },
      });
      http = request(stack.baseUrl);
    });

    const readsHost = () => remote.readsHost ?? remote.fake;
    const writesHost = () => remote.writesHost ?? remote.fake;
    /** every fake host of the upstream */
    const hosts = () => [...new Set([remote.fake, readsHost(), writesHost()])];

    beforeEach(() => {
      for (const host of hosts()) {
        host.clearFaults();
        host.latencyMs = 0;
      }
    });

    afterAll(async () => {
      await stack?.stop();
      await remote?.stop();
    });

    it('lists and shows the user’s resources, and answers 401 for a token the upstream refuses', async () => {
      const id = await remote.seedProject('Listed-Project', { 'a.txt': 'a' });
      const list = await http
        .get('/api_v1/targets/remote/resources/')
        .set(sourceHeaders(remote.token))
        .expect(200);
      expect(list.body.resources).toEqual(
        expect.arrayContaining([expect.objectContaining({ id, title: 'Listed-Project', kind: 'container' })]),
      );
      const detail = await http
        .get(`/api_v1/targets/remote/resources/${id}.json/`)
        .set(sourceHeaders(remote.token))
        .expect(200);
      expect(detail.body).toMatchObject({ id, title: 'Listed-Project', kind: 'container' });
      expect(detail.body.children.map((child: { title: string }) => child.title)).toContain('a.txt');
      const refused = await http
        .get('/api_v1/targets/remote/resources/')
        .set(sourceHeaders(remote.badToken))
        .expect(401);
      expect(refused.body.error).toMatch(/token/i);
    });

    it('downloads a resource as a valid bag with every file checked', async () => {
      const id = await remote.seedProject('Downloaded', seeded);
      const done = await download(id);
      expect(done.status).toBe(200);
      expect(done.body.failed_fixity).toEqual([]);
      if (checksums) expect(done.body.fixity_unverified).toEqual([]);
      expect(await downloadedTree(id, 'Downloaded')).toEqual(digests(seeded));
    });

    whenLfs('Git LFS', () => {
      const attributes = '*.bin filter=lfs diff=lfs merge=lfs -text\n';
      const plain = { '.gitattributes': attributes, 'README.md': '# Stored in LFS\n' };

      it('downloads files stored in Git LFS as their content, each checked against its oid', async () => {
        const id = await lfsHooks().seedProject('Lfs-Download', plain, { 'data/big.bin': big });
        const done = await download(id);
        expect(done.status).toBe(200);
        expect(done.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
        expect(await downloadedTree(id, 'Lfs-Download')).toEqual(digests({ ...plain, 'data/big.bin': big }));
      });

      it('reports an LFS object whose bytes are not those its oid names as failed fixity', async () => {
        const content = randomBytes(100_000);
        const id = await lfsHooks().seedProject('Lfs-Damaged', plain, { 'data/damaged.bin': content });
        lfsHooks().corrupt(content, randomBytes(content.length));
        const done = await download(id);
        expect(done.status).toBe(200);
        expect(done.body.failed_fixity).toEqual(['/Lfs-Damaged/data/damaged.bin']);
        expect(done.body.message).toMatch(/with fixity errors/);
      });

      it('transfers files stored in Git LFS out to the filesystem as their content', async () => {
        const id = await lfsHooks().seedProject('Lfs-Outbound', plain, { 'data/big.bin': big });
        const done = await transfer('lab', 'remote', id);
        expect(done.status).toBe(200);
        expect(done.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
        expect(labTree(done.body.destination_resource_id)).toEqual(
          digests({ ...plain, 'data/big.bin': big }),
        );
      });

      whenWritable('into a resource whose .gitattributes sends files to LFS', () => {
        it('writes, verifies and reads back the files', async () => {
          const container = await lfsHooks().seedProject('Lfs-Tracked', plain, {});
          const there = await transfer('remote', 'lab', SURVEY, container);
          expect(there.status).toBe(200);
          expect(there.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
          const back = await transfer('lab', 'remote', container);
          expect(back.status).toBe(200);
          expect(back.body.failed_fixity).toEqual([]);
          const returned = labTree(back.body.destination_resource_id);
          expect(returned['Survey/data/big.bin']).toBe(digests(tree)['data/big.bin']);
          expect(returned['Survey/README.md']).toBe(digests(tree)['README.md']);
        });
      });
    });

    it('retries file reads through 503s and dropped connections, and fails clearly when the upstream stays down', async () => {
      const id = await remote.seedProject('Faulty', { 'one.txt': 'one', 'two.txt': 'two' });
      readsHost().inject({
        kind: 'status',
        status: 503,
        times: 2,
        match: { method: 'GET', path: remote.fileReads },
      });
      readsHost().inject({ kind: 'reset', times: 1, match: { method: 'GET', path: remote.fileReads } });
      expect((await download(id)).status).toBe(200);
      readsHost().inject({
        kind: 'status',
        status: 500,
        times: 1000,
        match: { method: 'GET', path: remote.fileReads },
      });
      const failed = await download(id);
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ status: 'failed', status_code: 502 });
      expect(failed.body.message).toMatch(/answered 500/);
    });

    it('answers 401 for a source or a destination token the upstream refuses', async () => {
      const id = await remote.seedProject('Guarded', { 'a.txt': 'a' });
      await http
        .get(`/api_v1/targets/remote/resources/${id}.zip/`)
        .set({ ...sourceHeaders(remote.badToken), 'presqt-email-opt-in': '' })
        .expect(401);
      const badSource = await http
        .post('/api_v1/targets/lab/resources/')
        .set(jobHeaders(remote.badToken, LAB_TOKEN))
        .send({ source_target_name: 'remote', source_resource_id: id, keywords: [] });
      expect(badSource.status).toBe(401);
      if (!readOnly) {
        const badDestination = await http
          .post('/api_v1/targets/remote/resources/')
          .set(jobHeaders(LAB_TOKEN, remote.badToken))
          .send({ source_target_name: 'lab', source_resource_id: SURVEY, keywords: [] });
        expect(badDestination.status).toBe(401);
      }
    });

    it('transfers a resource out to the filesystem byte for byte', async () => {
      const id = await remote.seedProject('Outbound', seeded);
      const done = await transfer('lab', 'remote', id);
      expect(done.status).toBe(200);
      expect(done.body.failed_fixity).toEqual([]);
      expect(labTree(done.body.destination_resource_id)).toEqual(digests(seeded));
    });

    whenWritable('writing', () => {
      it('comes back byte for byte from a round trip filesystem → target → filesystem', async () => {
        const there = await transfer('remote', 'lab', SURVEY);
        expect(there.status).toBe(200);
        expect(there.body).toMatchObject({ failed_fixity: [], resources_ignored: [], resources_updated: [] });
        if (!folders && remote.storedNames) {
          // a target without folders holds the tree as one zip of a bag, beside the metadata file
          expect((await remote.storedNames(there.body.destination_resource_id)).sort()).toEqual([
            'PRESQT_FTS_METADATA.json',
            'Survey.presqt.zip',
          ]);
        }
        const back = await transfer('lab', 'remote', there.body.destination_resource_id);
        expect(back.status).toBe(200);
        expect(back.body.failed_fixity).toEqual([]);
        expect(labTree(back.body.destination_resource_id)).toEqual(labTree(SURVEY));
      });

      it('ignores duplicates, and with update replaces only the files that changed', async () => {
        const there = await transfer('remote', 'lab', SURVEY);
        const container = there.body.destination_resource_id as string;
        // into the container, the resource arrives as a folder: the first time new, then duplicates
        expect((await transfer('remote', 'lab', SURVEY, container)).body.resources_ignored).toEqual([]);
        const again = await transfer('remote', 'lab', SURVEY, container);
        expect(again.status).toBe(200);
        expect(again.body.resources_ignored.length).toBeGreaterThanOrEqual(3);
        expect(again.body.resources_updated).toEqual([]);
        writeFileSync(join(labRoot, 'alice', 'Survey', 'README.md'), '# Survey, revised\n');
        try {
          const updated = await transfer('remote', 'lab', SURVEY, container, 'update');
          expect(updated.status).toBe(200);
          expect(updated.body.resources_updated).toEqual(['/Survey/README.md']);
        } finally {
          writeFileSync(join(labRoot, 'alice', 'Survey', 'README.md'), tree['README.md']);
        }
      });

      it('uploads a bag as a new resource', async () => {
        const zip = await makeBagZip({
          files: { 'Uploaded/notes.txt': 'notes', 'Uploaded/deep/more.txt': 'more' },
        });
        const headers = {
          'presqt-destination-token': remote.token,
          'presqt-file-duplicate-action': 'ignore',
          'presqt-email-opt-in': '',
        };
        await http
          .post('/api_v1/targets/remote/resources/')
          .set(headers)
          .attach('presqt-file', zip, 'bag.zip')
          .expect(202);
        const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', {
          'presqt-destination-token': remote.token,
        });
        expect(done.status).toBe(200);
        expect(done.body.failed_fixity).toEqual([]);
        const back = await transfer('lab', 'remote', done.body.destination_resource_id);
        expect(back.status).toBe(200);
      });

      whenLimited(
        'refuses before the 202 an upload holding a file larger than the target takes',
        async () => {
          // mostly zeros, deflated: a small upload, within the zip-bomb ratio thanks to its random start
          const before = fileWritesSeen();
          const huge = Buffer.alloc((largestFile ?? 0) + 1);
          randomBytes(1 << 20).copy(huge);
          const zip = await makeBagZip({
            files: { 'Too-Big/huge.bin': huge, 'Too-Big/ok.txt': 'ok' },
            deflate: true,
          });
          const refused = await http
            .post('/api_v1/targets/remote/resources/')
            .set({
              'presqt-destination-token': remote.token,
              'presqt-file-duplicate-action': 'ignore',
              'presqt-email-opt-in': '',
            })
            .attach('presqt-file', zip, 'bag.zip')
            .expect(400);
          expect(refused.body.error).toMatch(
            /^PresQT Error: The target cannot take these files: 'huge\.bin' \(/,
          );
          expect(fileWritesSeen()).toBe(before);
        },
      );

      whenLimited(
        'refuses a transfer holding a file larger than the target takes, before writing anything',
        async () => {
          const folder = join(labRoot, 'alice', 'Too-Large');
          mkdirSync(folder, { recursive: true });
          writeFileSync(join(folder, 'small.txt'), 'small');
          // a sparse file: no disk taken, zeros read
          writeFileSync(join(folder, 'huge.bin'), '');
          truncateSync(join(folder, 'huge.bin'), (largestFile ?? 0) + 1);
          const before = fileWritesSeen();
          const done = await transfer('remote', 'lab', Buffer.from('Too-Large').toString('base64url'));
          expect(done.body).toMatchObject({ status: 'failed', status_code: 400 });
          expect(done.body.message).toMatch(
            /^PresQT Error: The destination cannot take these files: 'Too-Large\/huge\.bin' \(/,
          );
          expect(fileWritesSeen()).toBe(before);
        },
      );

      whenOthersPublished('into another user’s published resource', () => {
        let published: string;
        beforeAll(async () => {
          if (!remote.seedOthersPublished) throw new Error(`the ${name} setup gives no seedOthersPublished`);
          published = await remote.seedOthersPublished('Open-Elsewhere', { 'shared.txt': 'shared' });
        });

        it('shows it without Upload or Transfer links, and downloads it', async () => {
          const detail = await http
            .get(`/api_v1/targets/remote/resources/${published}.json/`)
            .set(sourceHeaders(remote.token))
            .expect(200);
          expect(detail.body.links.map((link: { name: string }) => link.name)).toEqual([
            'Detail',
            'Download',
          ]);
          const done = await download(published);
          expect(done.status).toBe(200);
          expect(await downloadedTree(published, 'Open-Elsewhere')).toEqual(
            digests({ 'shared.txt': 'shared' }),
          );
        });

        it('refuses an upload or a transfer into it with 403 before the 202, writing nothing', async () => {
          const before = fileWritesSeen();
          const zip = await makeBagZip({ files: { 'Mine/notes.txt': 'notes' } });
          const upload = await http
            .post(`/api_v1/targets/remote/resources/${published}/`)
            .set({
              'presqt-destination-token': remote.token,
              'presqt-file-duplicate-action': 'ignore',
              'presqt-email-opt-in': '',
            })
            .attach('presqt-file', zip, 'bag.zip')
            .expect(403);
          expect(upload.body.error).toMatch(/not change|not changed/);
          const transferred = await http
            .post(`/api_v1/targets/remote/resources/${published}/`)
            .set(jobHeaders(LAB_TOKEN, remote.token))
            .send({ source_target_name: 'lab', source_resource_id: SURVEY, keywords: [] })
            .expect(403);
          expect(transferred.body.error).toBe(upload.body.error);
          expect(fileWritesSeen()).toBe(before);
        });
      });

      it('writes through rate limits and 5xx answers of the upstream', async () => {
        writesHost().inject({
          kind: 'status',
          status: 429,
          headers: { 'retry-after': '1' },
          times: 1,
          match: writes(),
        });
        writesHost().inject({
          kind: 'status',
          status: 503,
          times: 2,
          match: writes(),
        });
        const done = await transfer('remote', 'lab', SURVEY);
        expect(done.status).toBe(200);
        expect(done.body.failed_fixity).toEqual([]);
      });

      // Every request waits on the upstream, so that the files in flight (FILE_TRANSFERS) are held while the
      // worker's memory is watched; 5 ms rather than a WAN's 20 keeps the suites' eleven runs of it about 45 s
      // shorter in CI, with the same files in flight. Into S3 this makes about 2,070 requests (a PUT and a HEAD
      // a file) and took 38-41 s at 20 ms and load 9-10 on 2 cores, 27 s with no latency: mostly CPU, of the
      // worker (12 s, the AWS SDK's request handling first), s3rver (7 s) and the fake in this process (5 s),
      // which load stretches past jest's 60 s. The time is transferAndWait's (120 s, then it says how far the
      // job got), with room for writing the files.
      it('transfers 1,000 files with the worker’s memory flat, the upstream 5 ms away', async () => {
        const files: Record<string, string> = {};
        for (let i = 0; i < 1000; i++)
          files[`alice/Thousand/d${i % 10}/f${i}.txt`] = `file ${i}\n`.repeat(50);
        writeTree(labRoot, files);
        for (const host of hosts()) host.latencyMs = 5;
        const { result, peakMiB } = await peakRssDuring(stack.worker!, () =>
          transfer('remote', 'lab', Buffer.from('Thousand').toString('base64url')),
        );
        // with the body, which names why a job failed: a bare 500 says nothing in CI's log
        expect(`${result.status} ${JSON.stringify(result.body)}`).toMatch(/^200 /);
        expect(result.body.failed_fixity).toEqual([]);
        expect(peakMiB).toBeLessThan(300);
      }, 150_000);
    });
  });
}
