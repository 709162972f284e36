import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  withZippedFolders,
  type Connector,
  type ConnectorContext,
  type ConnectorSession,
} from '@app/connectors';
import { filesystemConnector, type FilesystemOptions } from '@app/connectors/filesystem';
import { describeConnector } from '../conformance/describe-connector';
import { filesystemUnderTest } from '../support/fs-fixtures';
import { connectorContext } from '../support/connector-context';

/**
 * The zipped-folders wrapper over the filesystem connector: what it writes with folders lands as one zip, and
 * every walk must give the tree back.
 */
async function flatFilesystem() {
  const tmp = await mkdtemp(join(tmpdir(), 'zipped-'));
  const root = join(tmp, 'root');
  const context = connectorContext({ dataDir: tmp });
  const connector = withZippedFolders(
    filesystemConnector.create({ root, tokens: { 'alice-token': 'alice' }, per_page: 5 }, context),
    context,
  );
  return { tmp, root, connector };
}

const zippedFilesystem = {
  name: 'filesystem with zipped folders',
  capabilities: { ...filesystemConnector.capabilities, zippedFolders: true },
  create: (options: FilesystemOptions, context: ConnectorContext) =>
    withZippedFolders(filesystemConnector.create(options, context), context),
};

describeConnector(zippedFilesystem, filesystemUnderTest);

describe('zipped folders', () => {
  let tmp: string;
  let root: string;
  let connector: Connector;
  let session: ConnectorSession;

  beforeEach(async () => {
    ({ tmp, root, connector } = await flatFilesystem());
    await mkdir(root, { recursive: true });
    session = await connector.open('alice-token');
  });

  afterEach(() => rm(tmp, { recursive: true, force: true }));

  const incoming = (text: string) => ({
    size: Buffer.byteLength(text),
    open: async () => Readable.from([Buffer.from(text)]),
  });

  async function write(id: string, files: Record<string, string>, duplicate: 'ignore' | 'update' = 'ignore') {
    const writer = await session.openWriter(id, { newProject: false, message: 'test', nested: true });
    const outcomes: string[] = [];
    for (const [path, content] of Object.entries(files))
      outcomes.push((await writer.putFile(path.split('/'), incoming(content), duplicate)).outcome);
    await writer.commit();
    return outcomes;
  }

  async function tree(id: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for await (const entry of session.walk(id)) {
      if (entry.kind !== 'file') continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await entry.open()) chunks.push(chunk as Buffer);
      files[entry.path] = Buffer.concat(chunks).toString();
    }
    return files;
  }

  it('stores nested files as one zip beside a plain metadata file, and walks them back', async () => {
    const project = await session.createProject('Survey');
    await write(project.id, { 'a.txt': 'a', 'sub/b.txt': 'b', 'PRESQT_FTS_METADATA.json': '{}' });
    expect((await readdir(join(root, 'alice', 'Survey'))).sort()).toEqual([
      'PRESQT_FTS_METADATA.json',
      'Survey.presqt.zip',
    ]);
    expect(await tree(project.id)).toEqual({
      'Survey/PRESQT_FTS_METADATA.json': '{}',
      'Survey/a.txt': 'a',
      'Survey/sub/b.txt': 'b',
    });
  });

  it('judges duplicates file by file against the earlier zip, keeping the files not written again', async () => {
    const project = await session.createProject('Survey');
    await write(project.id, { 'keep.txt': 'k', 'same.txt': 's', 'dir/changed.txt': 'one' });
    expect(await write(project.id, { 'same.txt': 'x', 'dir/changed.txt': 'two' }, 'ignore')).toEqual([
      'ignored',
      'ignored',
    ]);
    expect(
      await write(project.id, { 'same.txt': 's', 'dir/changed.txt': 'two', 'dir/new.txt': 'n' }, 'update'),
    ).toEqual(['ignored', 'updated', 'created']);
    expect(await tree(project.id)).toEqual({
      'Survey/keep.txt': 'k',
      'Survey/same.txt': 's',
      'Survey/dir/changed.txt': 'two',
      'Survey/dir/new.txt': 'n',
    });
  });

  it('vouches for unpacked files with the checksums of the bag', async () => {
    const project = await session.createProject('Sums');
    await write(project.id, { 'x/y.txt': 'why' });
    for await (const entry of session.walk(project.id)) {
      if (entry.kind !== 'file') continue;
      expect(await entry.sourceHashes(['sha256', 'md5'])).toEqual({
        sha256: createHash('sha256').update('why').digest('hex'),
        md5: createHash('md5').update('why').digest('hex'),
      });
    }
  });

  it('leaves a zip that is not a bag of its own as a plain file', async () => {
    const dir = join(root, 'alice', 'Mine');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'holiday.presqt.zip'), 'not a zip at all');
    expect(await tree(Buffer.from('Mine').toString('base64url'))).toEqual({
      'Mine/holiday.presqt.zip': 'not a zip at all',
    });
  });
});
