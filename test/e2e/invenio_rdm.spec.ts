import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FakeGitHub } from '../fakes/github/fake-github';
import { InvenioFake } from '../fakes/invenio_rdm/invenio-fake';
import type { User } from '../fakes/invenio_rdm/model';
import {
  ALL_ACTIONS,
  filesystemEntry,
  writeTargetsFile,
  writeTree,
  projectDigests,
} from '../support/fs-fixtures';
import { transferAndWait } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';
import { describeRemoteTarget } from './remote/describe-remote-target';
import { githubEntry } from './remote/github-entry';

/** The targets-file entry of an InvenioRDM target at the fake (its name and partners are the suite's). */
function invenioEntry(fake: InvenioFake): Record<string, unknown> {
  return {
    readable_name: 'InvenioRDM',
    status_url: `${fake.server.url}/records?size=1`,
    token_url: 'https://zenodo.org/account/settings/applications/tokens/new/',
    supported_actions: ALL_ACTIONS,
    supported_hash_algorithms: ['md5'],
    infinite_depth: false,
    search_parameters: ['general', 'title', 'id', 'keywords'],
    connector: 'invenio_rdm',
    options: { api_url: `${fake.server.url}/` },
  };
}

/** InvenioRDM keeps no folders: the round trip goes through one zip of a bag and comes back as the same tree. */
describeRemoteTarget(
  'InvenioRDM',
  async () => {
    const fake = await new InvenioFake().start();
    const alice = fake.addUser('alice-invenio-token', 'Alice Example');
    const bob = fake.addUser('bob-invenio-token', 'Bob Other');
    return {
      fake: fake.server,
      entry: invenioEntry(fake),
      token: 'alice-invenio-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => fake.seed(alice, { title, files }).id,
      seedOthersPublished: async (title, files) => fake.seed(bob, { title, files, published: true }).id,
      storedNames: async (id) => {
        const record = fake.state.records.get(id);
        return (record?.draft ?? record?.published)?.files.map((file) => file.key) ?? [];
      },
      fileReads: /\/files\/[^/]+\/content$/,
      fileWrites: { method: 'PUT', path: /\/draft\/files\/[^/]+\/content$/ },
      stop: () => fake.stop(),
    };
  },
  { folders: false, othersPublished: true },
);

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/** What is special to InvenioRDM, end to end: transfers from GitHub, new versions, and where each token goes. */
describe('InvenioRDM end to end: GitHub, new versions and tokens', () => {
  const LAB = 'alice-token';
  const INVENIO = 'alice-invenio-token';
  const GITHUB = 'alice-github-token';
  let invenio: InvenioFake;
  let github: FakeGitHub;
  let alice: User;
  let stack: Stack;
  let labRoot: string;
  let http: ReturnType<typeof request>;

  const tokens: Record<string, string> = { lab: LAB, invenio: INVENIO, github: GITHUB };

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
    invenio = await new InvenioFake().start();
    github = await FakeGitHub.start();
    const gitUrl = await github.startLfs();
    github.addAccount('alice', { token: GITHUB });
    labRoot = mkdtempSync(join(tmpdir(), 'presqt-lab-'));
    const everyOther = (name: string) => {
      const others = ['lab', 'invenio', 'github'].filter((other) => other !== name);
      return { supported_transfer_partners: { transfer_in: others, transfer_out: others } };
    };
    const targetsFile = writeTargetsFile([
      filesystemEntry('lab', labRoot, everyOther('lab')),
      { ...invenioEntry(invenio), name: 'invenio', ...everyOther('invenio') },
      { ...githubEntry(github, gitUrl), name: 'github', ...everyOther('github') },
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRY_BASE_MS: '20' } });
    http = request(stack.baseUrl);
  });

  beforeEach(() => {
    invenio.reset();
    alice = invenio.addUser(INVENIO, 'Alice Example');
    github.server.requests.length = 0;
  });

  afterAll(async () => {
    await stack?.stop();
    await invenio?.stop();
    await github?.stop();
  });

  it('transfers a GitHub repository into a new draft byte for byte, its topics as subjects, and back', async () => {
    const big = randomBytes(1 << 20);
    const files = { 'README.md': '# Reef\n', 'data/raw/depth.bin': big, 'data/notes.txt': 'notes' };
    const repository = github.seedRepository('alice', 'reef-survey', { files, topics: ['coral', 'reefs'] });
    const done = await transfer('invenio', 'github', String(repository.id), undefined, 'manual');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ failed_fixity: [] });
    const id = done.body.destination_resource_id as string;
    const record = invenio.state.records.get(id)!;
    expect(record.published).toBeNull();
    expect(record.draft!.metadata).toMatchObject({
      resource_type: { id: 'dataset' },
      creators: [{ person_or_org: { type: 'personal', family_name: 'Alice Example' } }],
    });
    const keywords = await http
      .get(`/api_v1/targets/invenio/resources/${id}/keywords/`)
      .set({ 'presqt-source-token': INVENIO })
      .expect(200);
    expect(keywords.body.keywords).toEqual(expect.arrayContaining(['coral', 'reefs']));
    const back = await transfer('lab', 'invenio', id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    expect(labTree(back.body.destination_resource_id)).toEqual({
      'README.md': sha256(files['README.md']),
      'data/raw/depth.bin': sha256(big),
      'data/notes.txt': sha256('notes'),
    });
    // each token only at its own upstream
    const authorizations = (requests: { headers: { authorization?: string } }[]) =>
      new Set(requests.map((request) => request.headers.authorization ?? ''));
    expect([...authorizations(invenio.server.requests)].join()).not.toContain(GITHUB);
    expect(authorizations(invenio.server.requests).has(`Bearer ${INVENIO}`)).toBe(true);
    expect([...authorizations(github.server.requests)].join()).not.toContain(INVENIO);
    expect(invenio.server.requests.some((request) => /publish/.test(request.url))).toBe(false);
  });

  it('transfers into a published record as a new version draft, the published version left as it was', async () => {
    const published = invenio.seed(alice, {
      title: 'Survey 2023',
      published: true,
      files: { 'old.txt': 'old' },
    });
    writeTree(labRoot, { 'alice/Additions/new.txt': 'new' });
    const done = await transfer(
      'invenio',
      'lab',
      Buffer.from('Additions').toString('base64url'),
      published.id,
    );
    expect(done.status).toBe(200);
    expect(done.body.failed_fixity).toEqual([]);
    const version = [...invenio.state.records.values()].find((record) => record.id !== published.id)!;
    expect(version).toMatchObject({ parent: published.parent, versionIndex: 2, published: null });
    // the project comes as a folder, which InvenioRDM cannot hold: it is kept as one zip of a bag
    expect(version.draft!.files.map((file) => file.key).sort()).toEqual([
      'PRESQT_FTS_METADATA.json',
      'Survey 2023.presqt.zip',
      'old.txt',
    ]);
    expect(published.published!.files.map((file) => file.key)).toEqual(['old.txt']);
  });
});
