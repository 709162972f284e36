import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGitHub } from '../fakes/github/fake-github';
import { frontOf, RcloneWebdav } from '../fakes/webdav/rclone-webdav';
import { filesystemEntry, projectDigests, writeTargetsFile, ALL_ACTIONS } from '../support/fs-fixtures';
import { transferAndWait } from '../support/jobs';
import { peakRssDuring, startStack, type Stack } from '../support/stack';
import { describeRemoteTarget } from './remote/describe-remote-target';
import { githubEntry } from './remote/github-entry';

/** The targets-file entry of a WebDAV target whose users' roots are at `origin`/dav/files/<user>/. */
function webdavEntry(origin: string): Record<string, unknown> {
  const { keywords: _keywords, keywords_upload: _upload, ...actions } = ALL_ACTIONS;
  return {
    readable_name: 'WebDAV',
    status_url: `${origin}/dav/files/`,
    token_url: 'https://docs.nextcloud.com/server/latest/user_manual/en/session_management.html',
    supported_actions: { ...actions, keywords: false, keywords_upload: false },
    supported_hash_algorithms: ['md5'],
    infinite_depth: true,
    search_parameters: ['general', 'title', 'id'],
    connector: 'webdav',
    options: { api_url: `${origin}/dav/files/{user}/` },
  };
}

/** Every action against a real WebDAV server (rclone serve webdav), faults injected in front of it. */
describeRemoteTarget('WebDAV', async () => {
  const server = await new RcloneWebdav().start();
  const front = await frontOf(server);
  return {
    fake: front,
    entry: webdavEntry(front.origin),
    token: server.token,
    badToken: `${server.user}:wrong-password`,
    seedProject: async (title, files) => server.seedProject(title, files),
    fileReads: /^\/dav\/files\/alice\/.*[^/]$/,
    fileWrites: { method: 'PUT', path: /^\/dav\/files\/alice\/.+/ },
    stop: async () => {
      await front.stop();
      await server.stop();
    },
  };
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/** What is special to WebDAV end to end: a GitHub repository into it, and a large file streamed both ways. */
describe('WebDAV end to end: GitHub, a large file, and tokens', () => {
  const LAB = 'alice-token';
  const GITHUB = 'alice-github-token';
  let server: RcloneWebdav;
  let github: FakeGitHub;
  let stack: Stack;
  let labRoot: string;
  const tokens: Record<string, string> = { lab: LAB, github: GITHUB };

  const transfer = (to: string, from: string, id: string) =>
    transferAndWait(stack.baseUrl, { to, from, id, sourceToken: tokens[from], destinationToken: tokens[to] });

  beforeAll(async () => {
    server = await new RcloneWebdav().start();
    tokens.webdav = server.token;
    github = await FakeGitHub.start();
    const gitUrl = await github.startLfs();
    github.addAccount('alice', { token: GITHUB });
    labRoot = mkdtempSync(join(tmpdir(), 'presqt-lab-'));
    const everyOther = (name: string) => {
      const others = ['lab', 'webdav', 'github'].filter((other) => other !== name);
      return { supported_transfer_partners: { transfer_in: others, transfer_out: others } };
    };
    const targetsFile = writeTargetsFile([
      filesystemEntry('lab', labRoot, everyOther('lab')),
      { ...webdavEntry(server.origin), name: 'webdav', ...everyOther('webdav') },
      { ...githubEntry(github, gitUrl), name: 'github', ...everyOther('github') },
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile, UPSTREAM_RETRY_BASE_MS: '20' } });
  });

  afterAll(async () => {
    await stack?.stop();
    await github?.stop();
    await server?.stop();
  });

  it('transfers a GitHub repository into WebDAV and back to the filesystem byte for byte, each token at its own host', async () => {
    const big = randomBytes(1 << 20);
    const files = { 'README.md': '# Reef\n', 'data/raw/depth.bin': big, 'data/notes.txt': 'notes' };
    const repository = github.seedRepository('alice', 'reef-survey', { files, topics: ['coral'] });
    github.server.requests.length = 0;
    const there = await transfer('webdav', 'github', String(repository.id));
    expect(there.status).toBe(200);
    expect(there.body).toMatchObject({ failed_fixity: [] });
    // each file's bytes are read from GitHub once: GitHub keeps no MD5 to send as OC-Checksum, and none is
    // computed by reading the file beforehand
    const blobReads = github.server.requests
      .filter((request) => request.method === 'GET' && /\/git\/blobs\//.test(request.url))
      .map((request) => request.url);
    expect(blobReads).toHaveLength(Object.keys(files).length);
    expect(new Set(blobReads).size).toBe(Object.keys(files).length);
    const back = await transfer('lab', 'webdav', there.body.destination_resource_id as string);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ failed_fixity: [], fixity_unverified: [] });
    expect(projectDigests(labRoot, 'alice', back.body.destination_resource_id as string)).toEqual({
      'README.md': sha256(files['README.md']),
      'data/raw/depth.bin': sha256(big),
      'data/notes.txt': sha256('notes'),
    });
    const sent = github.server.requests.map((request) => String(request.headers.authorization ?? ''));
    expect(sent.join()).not.toContain(Buffer.from(server.token).toString('base64'));
  });

  it('streams a 256 MiB file filesystem → WebDAV → filesystem with the worker’s memory flat', async () => {
    const folder = join(labRoot, 'alice', 'Large');
    mkdirSync(folder, { recursive: true });
    const digest = createHash('sha256');
    const out = createWriteStream(join(folder, 'large.bin'));
    for (let i = 0; i < 256; i++) {
      const piece = randomBytes(1 << 20);
      digest.update(piece);
      if (!out.write(piece)) await once(out, 'drain');
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));
    const { result: there, peakMiB: upMiB } = await peakRssDuring(stack.worker!, () =>
      transfer('webdav', 'lab', Buffer.from('Large').toString('base64url')),
    );
    expect(there.status).toBe(200);
    expect(there.body.failed_fixity).toEqual([]);
    const { result: back, peakMiB: downMiB } = await peakRssDuring(stack.worker!, () =>
      transfer('lab', 'webdav', there.body.destination_resource_id as string),
    );
    expect(back.status).toBe(200);
    expect(back.body.failed_fixity).toEqual([]);
    expect(projectDigests(labRoot, 'alice', back.body.destination_resource_id as string)['large.bin']).toBe(
      digest.digest('hex'),
    );
    expect(Math.max(upMiB, downMiB)).toBeLessThan(300);
  });
});
