import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FakeGitHub } from '../fakes/github/fake-github';
import { S3ChecksumProxy } from '../fakes/s3/s3-proxy';
import { S3RVER_TOKEN, S3Seeder } from '../fakes/s3/s3-seeder';
import { ALL_ACTIONS, filesystemEntry, projectDigests, writeTargetsFile } from '../support/fs-fixtures';
import { transferAndWait } from '../support/jobs';
import { startS3Server, type S3Server } from '../support/s3-server';
import { startStack, type Stack } from '../support/stack';
import { describeRemoteTarget } from './remote/describe-remote-target';
import { githubEntry } from './remote/github-entry';

/** The targets-file entry of an S3 target: a bucket of s3rver's behind the checksum proxy, below `prefix`. */
function s3Entry(proxy: S3ChecksumProxy, bucket: string, prefix: string): Record<string, unknown> {
  return {
    readable_name: 'Lab bucket',
    status_url: proxy.url,
    token_url: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html',
    supported_actions: ALL_ACTIONS,
    supported_hash_algorithms: ['sha256', 'md5'],
    infinite_depth: true,
    search_parameters: ['general', 'title', 'id'],
    connector: 's3',
    options: { api_url: proxy.url, bucket, prefix, path_style: true },
  };
}

/** An s3rver process behind the checksum proxy: the fake of the suite is the proxy, its faults and latency. */
async function startS3(
  prefix: string,
): Promise<{ server: S3Server; proxy: S3ChecksumProxy; seeder: S3Seeder }> {
  const server = await startS3Server();
  const proxy = await new S3ChecksumProxy(server.endpoint).start();
  return { server, proxy, seeder: new S3Seeder(proxy.url, server.bucket, prefix) };
}

describeRemoteTarget('S3', async () => {
  const { server, proxy, seeder } = await startS3('e2e/');
  return {
    fake: proxy,
    entry: s3Entry(proxy, server.bucket, 'e2e/'),
    token: S3RVER_TOKEN,
    badToken: 'mallory-token',
    seedProject: (title, files) => seeder.seedProject(title, files),
    // objects' keys (never a folder marker, which ends in `/`), not listings of the bucket
    fileReads: /^\/presqt-jobs\/e2e\/.*[^/]$/,
    fileWrites: { method: 'PUT', path: /^\/presqt-jobs\/e2e\/.*[^/]$/ },
    stop: async () => {
      seeder.close();
      await proxy.stop();
      await server.stop();
    },
  };
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/** What is special to S3 end to end: a GitHub repository archived into the bucket, and where each key goes. */
describe('S3 end to end: GitHub into a bucket, and the tokens', () => {
  const LAB = 'alice-token';
  const GITHUB = 'alice-github-token';
  let s3: Awaited<ReturnType<typeof startS3>>;
  let github: FakeGitHub;
  let stack: Stack;
  let labRoot: string;
  let http: ReturnType<typeof request>;
  const tokens: Record<string, string> = { lab: LAB, s3: S3RVER_TOKEN, github: GITHUB };

  const transfer = (to: string, from: string, id: string, keywordAction = 'none') =>
    transferAndWait(stack.baseUrl, {
      to,
      from,
      id,
      sourceToken: tokens[from],
      destinationToken: tokens[to],
      keywordAction,
    });

  beforeAll(async () => {
    s3 = await startS3('archive/');
    github = await FakeGitHub.start();
    const gitUrl = await github.startLfs();
    github.addAccount('alice', { token: GITHUB });
    labRoot = mkdtempSync(join(tmpdir(), 'presqt-lab-'));
    const everyOther = (name: string) => {
      const others = ['lab', 's3', 'github'].filter((other) => other !== name);
      return { supported_transfer_partners: { transfer_in: others, transfer_out: others } };
    };
    const targetsFile = writeTargetsFile([
      filesystemEntry('lab', labRoot, everyOther('lab')),
      { ...s3Entry(s3.proxy, s3.server.bucket, 'archive/'), name: 's3', ...everyOther('s3') },
      { ...githubEntry(github, gitUrl), name: 'github', ...everyOther('github') },
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRY_BASE_MS: '20' } });
    http = request(stack.baseUrl);
  });

  afterAll(async () => {
    await stack?.stop();
    s3?.seeder.close();
    await s3?.proxy.stop();
    await s3?.server.stop();
    await github?.stop();
  });

  it('archives a GitHub repository into the bucket byte for byte, its topics as keywords, and back', async () => {
    const big = randomBytes(1 << 20);
    const files = { 'README.md': '# Reef\n', 'data/raw/depth.bin': big, 'data/notes.txt': 'notes' };
    const repository = github.seedRepository('alice', 'reef-survey', { files, topics: ['coral', 'reefs'] });
    const done = await transfer('s3', 'github', String(repository.id), 'manual');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    const id = done.body.destination_resource_id as string;
    expect((await s3.seeder.keys()).sort()).toEqual([
      'archive/reef-survey/',
      'archive/reef-survey/PRESQT_FTS_METADATA.json',
      'archive/reef-survey/README.md',
      'archive/reef-survey/data/',
      'archive/reef-survey/data/notes.txt',
      'archive/reef-survey/data/raw/',
      'archive/reef-survey/data/raw/depth.bin',
    ]);
    const keywords = await http
      .get(`/api_v1/targets/s3/resources/${id}/keywords/`)
      .set({ 'presqt-source-token': S3RVER_TOKEN })
      .expect(200);
    expect(keywords.body.keywords).toEqual(expect.arrayContaining(['coral', 'reefs']));
    const back = await transfer('lab', 's3', id);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    expect(projectDigests(labRoot, 'alice', back.body.destination_resource_id)).toEqual({
      'README.md': sha256(files['README.md']),
      'data/raw/depth.bin': sha256(big),
      'data/notes.txt': sha256('notes'),
    });
    // the key pair's signature only at the bucket's endpoint, the GitHub token only at GitHub
    const authorizations = (requests: { headers: { authorization?: string } }[]) =>
      requests.map((request) => request.headers.authorization ?? '').join('\n');
    expect(authorizations(github.server.requests)).not.toContain('S3RVER');
    expect(authorizations(s3.proxy.requests)).not.toContain(GITHUB);
    expect(authorizations(s3.proxy.requests)).toContain('Credential=S3RVER/');
  });
});
