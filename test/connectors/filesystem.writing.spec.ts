import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connectorContext } from '../support/connector-context';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { filesystemConnector } from '@app/connectors/filesystem';
import { readSmallJson } from '@app/connectors/filesystem/disk';
import type { ConnectorSession, DuplicateAction, IncomingFile, RemoteFile } from '@app/connectors';
import type { CopyTarget } from '@app/fixity';

const incoming = (text: string): IncomingFile => ({
  size: Buffer.byteLength(text),
  open: async () => Readable.from([Buffer.from(text)]),
});

describe('filesystem connector: writing', () => {
  let tmp: string;
  let session: ConnectorSession;
  let userDir: string;

  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'fs-write-'));
    userDir = join(tmp, 'root', 'alice');
    const connector = filesystemConnector.create(
      { root: join(tmp, 'root'), tokens: { t: 'alice' } },
      connectorContext({ targetName: 'fs', dataDir: tmp, configDir: tmp }),
    );
    await mkdir(join(tmp, 'root'), { recursive: true });
    session = await connector.open('t');
  });

  afterEach(() => rm(tmp, { recursive: true, force: true }));

  async function put(containerId: string, path: string[], file: IncomingFile, duplicate: DuplicateAction) {
    const writer = await session.openWriter(containerId, { newProject: false, message: 'test' });
    return writer.putFile(path, file, duplicate);
  }

  it('numbers a project title that is taken as Title (2), and refuses unsafe titles', async () => {
    const first = await session.createProject('Survey');
    const second = await session.createProject('Survey');
    expect([first.title, second.title]).toEqual(['Survey', 'Survey (2)']);
    expect(first).toMatchObject({ kind: 'container', kindName: 'project', container: null });
    await expect(session.createProject('../escape')).rejects.toMatchObject({ status: 400 });
    await expect(session.createProject('.presqt-x')).rejects.toMatchObject({ status: 400 });
  });

  it('refuses unsafe names, files as containers, and folders through symlinks', async () => {
    const project = await session.createProject('P');
    for (const path of [['..', 'x'], ['a/b'], ['.presqt-keywords.json'], ['']]) {
      await expect(put(project.id, path, incoming('x'), 'ignore')).rejects.toMatchObject({
        status: 400,
      });
    }
    const file = await put(project.id, ['f.txt'], incoming('x'), 'ignore');
    await expect(put(file.id, ['g.txt'], incoming('x'), 'ignore')).rejects.toMatchObject({
      status: 400,
    });
    await symlink(tmp, join(userDir, 'P', 'link'));
    await expect(put(project.id, ['link', 'g.txt'], incoming('x'), 'ignore')).rejects.toMatchObject({
      status: 400,
    });
  });

  it('leaves no partial file when the source fails midway', async () => {
    const project = await session.createProject('P');
    const failing: IncomingFile = {
      size: 10,
      open: async () =>
        new Readable({
          read() {
            this.push(Buffer.from('abc'));
            this.destroy(new Error('connection reset'));
          },
        }),
    };
    await expect(put(project.id, ['f.bin'], failing, 'ignore')).rejects.toThrow('connection reset');
    expect(await readdir(join(userDir, 'P'))).toEqual([]);
  });

  it('takes back many changes in nested folders at once, leaving the container as it found it', async () => {
    const project = await session.createProject('P');
    await put(project.id, ['kept', 'old.txt'], incoming('old'), 'ignore');
    await mkdir(join(userDir, 'P', 'empty'));
    const writer = await session.openWriter(project.id, { newProject: false, message: 'test' });
    await writer.putFile(['kept', 'old.txt'], incoming('new'), 'update');
    for (let i = 0; i < 40; i++)
      await writer.putFile([`d${i % 3}`, `sub${i % 2}`, `f${i}.txt`], incoming(String(i)), 'ignore');
    await writer.putFile(['kept', 'f.txt'], incoming('f'), 'ignore');
    await writer.abandon!();
    expect((await readdir(join(userDir, 'P'), { recursive: true })).sort()).toEqual([
      'empty',
      'kept',
      join('kept', 'old.txt'),
    ]);
    expect(await readFile(join(userDir, 'P', 'kept', 'old.txt'), 'utf8')).toBe('old');
  });

  it('copies a file that offers copyInto without streaming it, and reads back only its sha256', async () => {
    const project = await session.createProject('P');
    const content = Buffer.from('copied, not streamed\n');
    const asked: CopyTarget[] = [];
    const copied: IncomingFile = {
      size: content.length,
      open: () => Promise.reject(new Error('a local copy is not streamed')),
      copyInto: async (target) => {
        asked.push(target);
        await writeFile(target.path, content, { flag: 'wx' });
        if (target.renameTo) await rename(target.path, target.renameTo);
        return { sha256: createHash('sha256').update(content).digest('hex') };
      },
    };
    const stored = await put(project.id, ['sub', 'f.bin'], copied, 'ignore');
    expect(stored).toMatchObject({
      outcome: 'created',
      hashes: { sha256: createHash('sha256').update(content).digest('hex') },
    });
    expect(Object.keys(stored.hashes)).toEqual(['sha256']);
    const written = join(userDir, 'P', 'sub', 'f.bin');
    // written under a hidden name, renamed into place by the copy
    expect(asked).toEqual([
      { path: expect.stringContaining('.presqt-partial-'), readBack: ['sha256'], renameTo: written },
    ]);
    expect(await readFile(written)).toEqual(content);
    expect(await readdir(join(userDir, 'P', 'sub'))).toEqual(['f.bin']);
  });

  it("copies a walked file's bytes with their digests, and refuses one swapped for a symlink since the walk", async () => {
    await mkdir(join(userDir, 'Src'), { recursive: true });
    await mkdir(join(tmp, 'root', 'bob'), { recursive: true });
    const content = Buffer.alloc(3 * (1 << 20) + 5, 7);
    await writeFile(join(userDir, 'Src', 'a.bin'), content);
    await writeFile(join(userDir, 'Src', 'b.txt'), 'mine');
    await writeFile(join(tmp, 'root', 'bob', 'secret.txt'), 'TOP SECRET');
    const files: RemoteFile[] = [];
    for await (const entry of session.walk(Buffer.from('Src').toString('base64url'), {}))
      if (entry.kind === 'file') files.push(entry);
    const [a, b] = ['Src/a.bin', 'Src/b.txt'].map((path) => files.find((file) => file.path === path)!);

    const target = join(tmp, 'copy.bin');
    const digests = await a.copyInto!({ path: target, readBack: ['sha256'] }, ['sha256', 'md5']);
    expect((await readFile(target)).equals(content)).toBe(true);
    const sha256 = createHash('sha256').update(content).digest('hex');
    expect(digests).toEqual({
      copied: { sha256, md5: createHash('md5').update(content).digest('hex') },
      stored: { sha256 },
      length: content.length,
    });

    await rm(join(userDir, 'Src', 'b.txt'));
    await symlink(join(tmp, 'root', 'bob', 'secret.txt'), join(userDir, 'Src', 'b.txt'));
    const stolen = join(tmp, 'stolen');
    await expect(b.copyInto!({ path: stolen, readBack: [] }, ['sha256'])).rejects.toMatchObject({
      code: 'ELOOP',
    });
    await expect(b.open()).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await readdir(tmp)).not.toContain('stolen');
  });

  it("reads a small walked file's bytes as walked, and refuses one replaced by a FIFO since the walk", async () => {
    await mkdir(join(userDir, 'Small'), { recursive: true });
    await writeFile(join(userDir, 'Small', 'grows.txt'), 'as walked');
    await writeFile(join(userDir, 'Small', 'piped.txt'), 'a file for now');
    const files: RemoteFile[] = [];
    for await (const entry of session.walk(Buffer.from('Small').toString('base64url'), {}))
      if (entry.kind === 'file') files.push(entry);
    const [grows, piped] = ['Small/grows.txt', 'Small/piped.txt'].map((path) =>
      files.find((file) => file.path === path)!,
    );

    await writeFile(join(userDir, 'Small', 'grows.txt'), 'as walked, and more since');
    expect((await buffer(await grows.open())).toString()).toBe('as walked');

    // a FIFO's open waits for a writer: read in the event loop, it would hang the whole worker
    await rm(join(userDir, 'Small', 'piped.txt'));
    execFileSync('mkfifo', [join(userDir, 'Small', 'piped.txt')]);
    await expect(piped.open()).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it('reads a metadata file as JSON, and nothing from a FIFO, a symlink or a file too big under its name', async () => {
    const dir = join(tmp, 'metadata');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'kept.json'), '{"keywords": ["soil"]}');
    expect(await readSmallJson(join(dir, 'kept.json'))).toEqual({ keywords: ['soil'] });
    execFileSync('mkfifo', [join(dir, 'piped.json')]);
    await symlink(join(dir, 'kept.json'), join(dir, 'linked.json'));
    await writeFile(join(dir, 'big.json'), `"${'x'.repeat(1 << 20)}"`);
    for (const name of ['piped.json', 'linked.json', 'big.json'])
      expect(await readSmallJson(join(dir, name))).toBeUndefined();
  });

  // Streamed (over 64 KiB), copied on a hashing thread, or spread over both threads (32 MiB and over): a FIFO's
  // open would wait for a writer and hold libuv's pool thread or a hashing thread for good.
  it.each([
    { size: 100 << 10, how: 'open' },
    { size: 100, how: 'copyInto' },
    { size: 100 << 10, how: 'copyInto' },
    { size: 33 << 20, how: 'copyInto' },
  ] as const)(
    'refuses a file of $size bytes replaced by a FIFO since the walk ($how)',
    async ({ size, how }) => {
      await mkdir(join(userDir, 'Piped'), { recursive: true });
      const path = join(userDir, 'Piped', 'data.bin');
      await writeFile(path, Buffer.alloc(size, 1));
      let walked: RemoteFile | undefined;
      for await (const entry of session.walk(Buffer.from('Piped').toString('base64url'), {}))
        if (entry.kind === 'file') walked = entry;
      await rm(path);
      execFileSync('mkfifo', [path]);
      const target: CopyTarget = { path: join(tmp, `copy-${size}`), readBack: ['sha256'] };
      const reading = how === 'open' ? walked!.open() : walked!.copyInto!(target, ['sha256']);
      await expect(reading).rejects.toMatchObject({ code: 'EINVAL' });
    },
  );
});
