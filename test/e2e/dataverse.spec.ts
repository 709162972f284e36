import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import archiver from 'archiver';
import request from 'supertest';
import { DataverseFake } from '../fakes/dataverse/dataverse-fake';
import type { User } from '../fakes/dataverse/model';
import { OsfFake } from '../fakes/osf/osf-fake';
import { makeBagZip } from '../support/bags';
import {
  ALL_ACTIONS,
  filesystemEntry,
  fsId,
  writeTargetsFile,
  writeTree,
  projectDigests,
} from '../support/fs-fixtures';
import { pollUntilDone, transferAndWait } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';
import { describeRemoteTarget } from './remote/describe-remote-target';
import { osfEntry } from './remote/osf-entry';

/** The targets-file entry of a Dataverse target at the fake (its name and partners are the suite's). */
function dataverseEntry(fake: DataverseFake): Record<string, unknown> {
  return {
    readable_name: 'Dataverse',
    status_url: `${fake.server.url}/info/version`,
    token_url: 'https://dataverse.harvard.edu/dataverseuser.xhtml?selectTab=apiTokenTab',
    supported_actions: ALL_ACTIONS,
    supported_hash_algorithms: ['md5', 'sha256'],
    infinite_depth: true,
    search_parameters: ['general', 'title', 'id', 'author', 'keywords'],
    connector: 'dataverse',
    options: { api_url: `${fake.server.url}/` },
  };
}

describeRemoteTarget(
  'Dataverse',
  async () => {
    const fake = await new DataverseFake().start();
    const alice = fake.addUser('alice-dataverse-token', 'Alice', 'Example');
    const bob = fake.addUser('bob-dataverse-token', 'Bob', 'Other');
    return {
      fake: fake.server,
      entry: dataverseEntry(fake),
      token: 'alice-dataverse-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => String(fake.seed(alice, { title, files }).id),
      seedOthersPublished: async (title, files) =>
        String(fake.seed(bob, { title, files, published: true }).id),
      fileReads: /\/access\/datafile\/\d+$/,
      fileWrites: { method: 'POST', path: /\/datasets\/\d+\/add$/ },
      stop: () => fake.stop(),
    };
  },
  { othersPublished: true },
);

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/**
 * What is special to Dataverse, end to end: transfers from OSF, tabular files that Dataverse ingests, zips,
 * direct upload to a store with redirected downloads, locks, and where each token goes.
 */
describe('Dataverse end to end: OSF, tabular files, zips, direct upload, locks and tokens', () => {
  const LAB = 'alice-token';
  const DATAVERSE = 'alice-dataverse-token';
  const OSF = 'alice-osf-token';
  let dataverse: DataverseFake;
  let osf: OsfFake;
  let alice: User;
  let osfOwner: ReturnType<OsfFake['addUser']>;
  let stack: Stack;
  let labRoot: string;
  let http: ReturnType<typeof request>;

  const tokens: Record<string, string> = { lab: LAB, dataverse: DATAVERSE, osf: OSF };

  const transfer = (to: string, from: string, id: string, container?: string, keywordAction = 'none') =>
    transferAndWait(stack.baseUrl, {
      to,
      from,
      id,
      container,
      sourceToken: tokens[from],
      destinationToken: tokens[to],
      keywordAction,
    });

  const labTree = (id: string) => projectDigests(labRoot, 'alice', id);

  beforeAll(async () => {
    dataverse = await new DataverseFake().start();
    osf = await new OsfFake().start();
    osfOwner = osf.addUser('Alice Example', OSF);
    labRoot = mkdtempSync(join(tmpdir(), 'presqt-lab-'));
    const everyOther = (name: string) => {
      const others = ['lab', 'dataverse', 'osf'].filter((other) => other !== name);
      return { supported_transfer_partners: { transfer_in: others, transfer_out: others } };
    };
    const targetsFile = writeTargetsFile([
      filesystemEntry('lab', labRoot, everyOther('lab')),
      { ...dataverseEntry(dataverse), name: 'dataverse', ...everyOther('dataverse') },
      { ...osfEntry(osf), name: 'osf', ...everyOther('osf') },
    ]);
    stack = await startStack({
      env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRY_BASE_MS: '20', UPSTREAM_MAX_WAIT_MS: '3000' },
    });
    http = request(stack.baseUrl);
  });

  beforeEach(() => {
    dataverse.reset();
    alice = dataverse.addUser(DATAVERSE, 'Alice', 'Example');
  });

  afterAll(async () => {
    await stack?.stop();
    await dataverse?.stop();
    await osf?.stop();
  });

  it('transfers an OSF project into a new Dataverse dataset byte for byte, with its tags as keywords', async () => {
    const big = randomBytes(1 << 20);
    const files = { 'README.md': '# Reef\n', 'data/raw/depth.bin': big, 'data/notes.txt': 'notes' };
    const project = osf.addProject(osfOwner, 'Reef Survey', files, { tags: ['coral', 'reefs'] });
    const done = await transfer('dataverse', 'osf', project.id, undefined, 'manual');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    const id = done.body.destination_resource_id as string;
    const dataset = dataverse.state.datasets.get(Number(id))!;
    expect(dataset.published).toBeUndefined();
    const keywords = await http
      .get(`/api_v1/targets/dataverse/resources/${id}/keywords/`)
      .set({ 'presqt-source-token': DATAVERSE })
      .expect(200);
    expect(keywords.body.keywords).toEqual(expect.arrayContaining(['coral', 'reefs']));
    const back = await transfer('lab', 'dataverse', id);
    expect(back.status).toBe(200);
    expect(back.body.failed_fixity).toEqual([]);
    expect(labTree(back.body.destination_resource_id)).toEqual({
      'README.md': sha256(files['README.md']),
      'data/raw/depth.bin': sha256(big),
      'data/notes.txt': sha256('notes'),
    });
  });

  it('brings a CSV back byte for byte after Dataverse ingested it into a table', async () => {
    const csv = 'station,temperature\nnorth,21.5\nsouth,23\n';
    writeTree(labRoot, { 'alice/Tabular/temps.csv': csv, 'alice/Tabular/about.txt': 'about' });
    dataverse.ingestMs = 200;
    const there = await transfer('dataverse', 'lab', fsId('Tabular'));
    expect(there.status).toBe(200);
    expect(there.body.failed_fixity).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ingested = [...dataverse.state.files.values()].find((file) => file.original !== undefined);
    expect(ingested?.content.toString()).not.toBe(csv);
    const back = await transfer('lab', 'dataverse', there.body.destination_resource_id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    expect(labTree(back.body.destination_resource_id)).toEqual({
      'temps.csv': sha256(csv),
      'about.txt': sha256('about'),
    });
  });

  it('uploads a bag whose files include a zip, which Dataverse keeps as that zip', async () => {
    const inner = await new Promise<Buffer>((resolve, reject) => {
      const archive = archiver('zip');
      const chunks: Buffer[] = [];
      archive.on('data', (chunk: Buffer) => chunks.push(chunk));
      archive.on('end', () => resolve(Buffer.concat(chunks)));
      archive.on('error', reject);
      archive.append('inside', { name: 'inside/a.txt' });
      void archive.finalize();
    });
    const zip = await makeBagZip({ files: { 'Packed/archive.zip': inner, 'Packed/readme.txt': 'readme' } });
    const headers = {
      'presqt-destination-token': DATAVERSE,
      'presqt-file-duplicate-action': 'ignore',
      'presqt-email-opt-in': '',
    };
    await http
      .post('/api_v1/targets/dataverse/resources/')
      .set(headers)
      .attach('presqt-file', zip, 'bag.zip')
      .expect(202);
    const done = await pollUntilDone(stack.baseUrl, '/api_v1/job_status/upload/', {
      'presqt-destination-token': DATAVERSE,
    });
    expect(done.status).toBe(200);
    expect(done.body.failed_fixity).toEqual([]);
    const draft = dataverse.state.datasets.get(Number(done.body.destination_resource_id))!.draft!;
    const stored = draft.files.find((entry) => entry.label === 'archive.zip');
    expect(stored && dataverse.state.files.get(stored.dataFileId)!.content.equals(inner)).toBe(true);
    expect(draft.files.map((entry) => entry.label)).not.toContain('a.txt');
  });

  it('sends files straight to the store and reads them back through its redirects, each token only to its own upstream', async () => {
    dataverse.directUpload = { partSize: 1 << 20 };
    dataverse.redirectDownloads = true;
    const big = randomBytes((2 << 20) + 99);
    const project = osf.addProject(osfOwner, 'Direct Survey', { 'big.bin': big, 'small.txt': 'small' });
    for (const server of [osf.api, osf.files]) server.requests.length = 0;
    const there = await transfer('dataverse', 'osf', project.id);
    expect(there.status).toBe(200);
    expect(there.body.failed_fixity).toEqual([]);
    expect(
      dataverse.store.server.requests.filter((sent) => sent.method === 'PUT').length,
    ).toBeGreaterThanOrEqual(4);
    const back = await transfer('lab', 'dataverse', there.body.destination_resource_id);
    expect(back.status).toBe(200);
    expect(back.body.failed_fixity).toEqual([]);
    expect(labTree(back.body.destination_resource_id)).toEqual({
      'big.bin': sha256(big),
      'small.txt': sha256('small'),
    });
    expect(
      dataverse.store.server.requests.filter((sent) => sent.method === 'GET').length,
    ).toBeGreaterThanOrEqual(2);
    const sentTo = (servers: { requests: { url: string; headers: Record<string, unknown> }[] }[]) =>
      servers
        .flatMap((server) => server.requests.map((sent) => `${sent.url} ${JSON.stringify(sent.headers)}`))
        .join('\n');
    expect(sentTo([osf.api, osf.files])).not.toContain(DATAVERSE);
    expect(sentTo([dataverse.server, dataverse.store.server])).not.toContain(OSF);
    expect(sentTo([dataverse.store.server])).not.toContain(DATAVERSE);
    for (const sent of dataverse.server.requests) expect(sent.headers['x-dataverse-key']).toBe(DATAVERSE);
  });

  it('waits out a dataset lock, and fails clearly (not as a bad token) when it stays', async () => {
    writeTree(labRoot, { 'alice/Locked/a.txt': 'a', 'alice/Locked/b.txt': 'b' });
    const busy = dataverse.seed(alice, { title: 'Busy' });
    dataverse.lock(busy, 'Workflow', 1000);
    const waited = await transfer('dataverse', 'lab', fsId('Locked'), String(busy.id));
    expect(waited.status).toBe(200);
    expect(waited.body.failed_fixity).toEqual([]);
    const stuck = dataverse.seed(alice, { title: 'Stuck' });
    dataverse.lock(stuck, 'Workflow');
    const failed = await transfer('dataverse', 'lab', fsId('Locked'), String(stuck.id));
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ status: 'failed', status_code: 503 });
    expect(failed.body.message).toMatch(/stayed locked \(Workflow\)/);
  });
});
