import { completeZipEntries, openZip, openZipEntryAt } from '@app/archive';
import { BagZipWriter, findBagRoot, validateBag, zipBagSource } from '@app/bagit';
import { ZipWriter } from '@app/bagit/zip-writer';
import { copyFile, SEPARATE_SOURCE_DIGEST_FROM } from '@app/fixity';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { crc32 } from 'node:zlib';
import { verifyBagZip } from '../support/jobs';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

/** Python's zipfile reads every entry, checking its CRC-32 and sizes; the names and sizes it found. */
function pythonReads(zip: string): string {
  return execFileSync('python3', [
    '-c',
    'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n' +
      'for i in z.infolist(): print(i.filename, i.file_size, len(z.read(i)))',
    zip,
  ]).toString();
}

describe('BagZipWriter copying local files into their entries on the hashing threads', () => {
  let dir: string;
  const binaries = new Map<string, Buffer>([
    ['a.bin', randomBytes(3 * (1 << 20) + 17)],
    ['empty.bin', Buffer.alloc(0)],
    ['deep/b.bin', randomBytes(70_000)],
    ['deep/c.dat', randomBytes(1 << 20)],
    // from SEPARATE_SOURCE_DIGEST_FROM, copied on one thread and read back from the zip on the other
    ['big.bin', randomBytes(SEPARATE_SOURCE_DIGEST_FROM + 4321)],
  ]);
  const texts = new Map([['notes.txt', 'streamed and deflated\n'.repeat(1000)]]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zip-writer-'));
    for (const [name, content] of binaries) await writeFile(join(dir, name.replace('/', '_')), content);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** RemoteFile.copyInto of the filesystem: the same copyFile, given the entry's place. */
  const copyInto =
    (name: string) => (target: Parameters<typeof copyFile>[2], algorithms: readonly string[]) =>
      copyFile(join(dir, name.replace('/', '_')), binaries.get(name)!.length, target, algorithms);

  /** A bag of the copied files, a streamed text file between them and a directory; what each file's digests were. */
  async function writeBag(zipPath: string, finish: boolean): Promise<Map<string, Record<string, string>>> {
    const writer = new BagZipWriter({
      output: zipPath,
      rootName: 'copied',
      algorithms: ['md5'],
      spillDir: dir,
    });
    const digests = new Map<string, Promise<Record<string, string>>>();
    for (const [name, content] of binaries) {
      expect(writer.takesCopy(name)).toBe(true);
      const added = await writer.copyPayloadFile(name, content.length, copyInto(name));
      digests.set(name, added.digests);
      if (name === 'a.bin') {
        const [textName, text] = [...texts][0];
        expect(writer.takesCopy(textName)).toBe(false);
        const streamed = await writer.streamPayloadFile(textName, Readable.from([Buffer.from(text)]));
        digests.set(textName, streamed.digests);
        await writer.addDirectory('empty folder');
      }
    }
    const results = new Map<string, Record<string, string>>();
    for (const [name, digest] of digests) results.set(name, await digest);
    if (finish) {
      await writer.addTagFile('PRESQT_FTS_METADATA.json', '{"actions": []}\n');
      await writer.finalize();
    }
    return results;
  }

  it('writes a bag that validates and that Python, unzip and bagit check, with the digests it returned', async () => {
    const zipPath = join(dir, 'copied.zip');
    const digests = await writeBag(zipPath, true);
    for (const [name, content] of binaries)
      expect(digests.get(name)).toMatchObject({ sha256: sha256(content), md5: md5(content) });
    expect(digests.get('notes.txt')?.sha256).toBe(sha256(texts.get('notes.txt')!));
    const zip = await openZip(zipPath);
    try {
      const result = await validateBag(zipBagSource(zip, findBagRoot(zip.entries)));
      expect(result).toMatchObject({ valid: true, errors: [] });
      expect(result.payload.map(({ path }) => path).sort()).toEqual([...digests.keys()].sort());
      const entry = (path: string) => zip.entries.find((each) => each.path === `copied/${path}`);
      expect(entry('data/a.bin')).toMatchObject({
        size: binaries.get('a.bin')!.length,
        compressedSize: binaries.get('a.bin')!.length,
      });
      expect(entry('data/notes.txt')!.compressedSize).toBeLessThan(entry('data/notes.txt')!.size);
      expect(entry('data/empty folder')).toMatchObject({ isDirectory: true });
    } finally {
      zip.close();
    }
    expect(pythonReads(zipPath)).toContain(
      `copied/data/a.bin ${binaries.get('a.bin')!.length} ${binaries.get('a.bin')!.length}\n`,
    );
    execFileSync('unzip', ['-tq', zipPath]);
    verifyBagZip(zipPath, 'copied');
  });

  it('leaves a partial zip whose complete entries a resumed run finds, with their exact bytes', async () => {
    const zipPath = join(dir, 'killed.zip');
    await writeBag(zipPath, false);
    const found = new Map<string, Buffer>();
    for await (const entry of completeZipEntries(zipPath))
      if (!entry.name.endsWith('/'))
        found.set(entry.name.replace('copied/data/', ''), await buffer(openZipEntryAt(zipPath, entry)));
    expect([...found.keys()].sort()).toEqual([...binaries.keys(), ...texts.keys()].sort());
    for (const [name, content] of binaries) expect(found.get(name)!.equals(content)).toBe(true);
  });

  it('fails the file, and the zip, when the source is shorter than announced', async () => {
    const short = join(dir, 'short.bin');
    await writeFile(short, randomBytes(1000));
    const writer = new BagZipWriter({ output: join(dir, 'short.zip'), rootName: 'short', spillDir: dir });
    const { digests } = await writer.copyPayloadFile('short.bin', 5000, (target, algorithms) =>
      copyFile(short, 5000, target, algorithms),
    );
    await expect(digests).rejects.toThrow(
      'data/short.bin: the source gave 1000 bytes where 5000 were announced',
    );
    await expect(writer.finalize()).rejects.toThrow('the source gave 1000 bytes');
    await writer.abort();
  });

  it('copies no file through a symbolic link swapped in for it', async () => {
    const link = join(dir, 'link.bin');
    execFileSync('ln', ['-s', join(dir, 'a.bin'), link]);
    const writer = new BagZipWriter({ output: join(dir, 'link.zip'), rootName: 'link', spillDir: dir });
    const size = binaries.get('a.bin')!.length;
    const { digests } = await writer.copyPayloadFile('link.bin', size, (target, algorithms) =>
      copyFile(link, size, target, algorithms),
    );
    await expect(digests).rejects.toMatchObject({ code: 'ELOOP' });
    await writer.abort();
  });
});

describe('ZipWriter with ZIP64 sizes and offsets', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zip64-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes an entry past 4 GiB (left sparse) and entries after it that real readers read', async () => {
    const zipPath = join(dir, 'big.zip');
    const zip = new ZipWriter(zipPath, join(dir, 'central'));
    const bigSize = 2 ** 32 + 10;
    const big = await zip.reserve('big.bin', bigSize);
    const small = randomBytes(5000);
    const after = await zip.reserve('after.bin', small.length);
    await zip.addStream('notes.txt', Readable.from([Buffer.from('line\n'.repeat(100))]), { deflate: true });
    // the big entry's data is left a hole, which reads as zeros
    let crc = 0;
    const zeros = Buffer.alloc(64 << 20);
    for (let left = bigSize; left > 0; left -= zeros.length)
      crc = crc32(zeros.subarray(0, Math.min(left, zeros.length)), crc);
    await big.complete(crc);
    const file = await open(zipPath, 'r+');
    await file.write(small, 0, small.length, after.dataStart);
    await file.close();
    await after.complete(crc32(small));
    await zip.finish();

    const listed = execFileSync('python3', [
      '-c',
      'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n' +
        'for i in sorted(z.infolist(), key=lambda i: i.header_offset): print(i.filename, i.file_size, i.header_offset)\n' +
        'print(z.read("after.bin").hex()); print(len(z.read("notes.txt")))',
      zipPath,
    ])
      .toString()
      .trim()
      .split('\n');
    expect(listed[0]).toBe(`big.bin ${bigSize} 0`);
    expect(Number(listed[1].split(' ')[2])).toBeGreaterThan(2 ** 32);
    expect(listed[3]).toBe(small.toString('hex'));
    expect(listed[4]).toBe('500');
    execFileSync('unzip', ['-tq', zipPath, 'after.bin', 'notes.txt']);

    const entries = [];
    for await (const entry of completeZipEntries(zipPath)) entries.push(entry);
    expect(entries.map(({ name, size }) => [name, size])).toEqual([
      ['big.bin', bigSize],
      ['after.bin', small.length],
      ['notes.txt', 500],
    ]);
  });
});
