import { completeZipEntries, openZip, openZipEntryAt } from '@app/archive';
import { BagZipWriter, findBagRoot, validateBag, zipBagSource } from '@app/bagit';
import { ZipWriter } from '@app/bagit/zip-writer';
import { copyFile, SEPARATE_SOURCE_DIGEST_FROM } from '@app/fixity';
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { crc32 } from 'node:zlib';
import { verifyBagZip } from '../support/jobs';
import { repeatedBlock } from '../support/repeated-block';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');
const MAX32 = 0xffffffff;

/** Python's zipfile reads every entry, checking its CRC-32 and sizes; the names and sizes it found. */
function pythonReads(zip: string): string {
  return execFileSync('python3', [
    '-c',
    'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n' +
      'for i in z.infolist(): print(i.filename, i.file_size, len(z.read(i)))',
    zip,
  ]).toString();
}

/** `count` zero bytes, from one buffer of 1 MiB: a stream of 4 GiB costs no memory and no disk. */
const zeroBytes = (count: number): Readable => repeatedBlock(Buffer.alloc(1 << 20), count);

/**
 * What bsdtar prints reading the zip from a pipe: libarchive's streaming reader, which knows an entry only from
 * its local header and finds its end from its data descriptor, whose sizes it reads as 8 bytes each only when
 * the local header has a ZIP64 field, as APPNOTE 4.3.9.2 says.
 */
function bsdtarStreams(zip: string, option: string, ...names: string[]): Buffer {
  return execFileSync('bsdtar', [option, '-', ...names], { input: readFileSync(zip), maxBuffer: 64 << 20 });
}

/** Each entry's name and whether its local header has a ZIP64 extended information field, in file order. */
function localZip64Fields(zip: string): Map<string, boolean> {
  const offsets = execFileSync('python3', [
    '-c',
    'import sys, zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.header_offset)',
    zip,
  ])
    .toString()
    .trim()
    .split('\n')
    .map(Number);
  const bytes = readFileSync(zip);
  const fields = new Map<string, boolean>();
  for (const offset of offsets) {
    const nameLength = bytes.readUInt16LE(offset + 26);
    const extra = bytes.subarray(
      offset + 30 + nameLength,
      offset + 30 + nameLength + bytes.readUInt16LE(offset + 28),
    );
    let zip64 = false;
    for (let field = 0; field + 4 <= extra.length; field += 4 + extra.readUInt16LE(field + 2))
      zip64 ||= extra.readUInt16LE(field) === 0x0001;
    fields.set(bytes.subarray(offset + 30, offset + 30 + nameLength).toString(), zip64);
  }
  return fields;
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

  it("copies a partial zip's stored entries into a new zip's entries as byte ranges, as a resumed run does", async () => {
    const killed = join(dir, 'killed-again.zip');
    await writeBag(killed, false);
    const resumedPath = join(dir, 'resumed.zip');
    const resumed = new BagZipWriter({ output: resumedPath, rootName: 'copied', spillDir: dir });
    const digests = new Map<string, Promise<Record<string, string>>>();
    for await (const entry of completeZipEntries(killed)) {
      if (entry.deflated || entry.name.endsWith('/')) continue;
      const name = entry.name.replace('copied/data/', '');
      const added = await resumed.copyPayloadFile(name, entry.size, (target, algorithms) =>
        copyFile(killed, entry.size, target, algorithms, entry.dataStart),
      );
      digests.set(name, added.digests);
    }
    // big.bin, from SEPARATE_SOURCE_DIGEST_FROM, is copied on one thread and read back on the other
    expect([...digests.keys()].sort()).toEqual([...binaries.keys()].sort());
    for (const [name, content] of binaries) expect((await digests.get(name))!.sha256).toBe(sha256(content));
    await resumed.finalize();
    const found = new Map<string, Buffer>();
    for await (const entry of completeZipEntries(resumedPath))
      if (entry.name.startsWith('copied/data/'))
        found.set(entry.name.replace('copied/data/', ''), await buffer(openZipEntryAt(resumedPath, entry)));
    for (const [name, content] of binaries) expect(found.get(name)!.equals(content)).toBe(true);
    execFileSync('unzip', ['-tq', resumedPath]);
    verifyBagZip(resumedPath, 'copied');
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

describe('ZipWriter with ZIP64 sizes and offsets, and entries whose sizes follow their data', () => {
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

  it('announces ZIP64 in the local header of an entry of unknown size or one that may pass 4 GiB, and stream readers read every entry', async () => {
    const zipPath = join(dir, 'streamed.zip');
    const zip = new ZipWriter(zipPath, join(dir, 'central'));
    const text = (n: number) => Buffer.from(`${n},row of a table\n`.repeat(2000 + n));
    // the size announced near 4 GiB is not checked by ZipWriter: only the header's choice is looked at here
    const nearly4GiB = MAX32 - 0x10000;
    const entries: [string, Buffer, { deflate: boolean; size?: number }, boolean][] = [
      ['unknown.bin', randomBytes(200_000), { deflate: false }, true],
      ['unknown.csv', text(1), { deflate: true }, true],
      ['known.bin', randomBytes(5000), { deflate: false, size: 5000 }, false],
      ['known.csv', text(2), { deflate: true, size: text(2).length }, false],
      // deflating incompressible bytes adds about 0.03%: such an entry may pass 4 GiB
      ['nearly-4-GiB.csv', text(3), { deflate: true, size: nearly4GiB }, true],
      ['nearly-4-GiB.bin', randomBytes(100), { deflate: false, size: nearly4GiB }, false],
    ];
    for (const [name, content, options] of entries)
      await zip.addStream(name, Readable.from([content]), options);
    const copied = randomBytes(3000);
    const after = await zip.reserve('after.bin', copied.length);
    const file = await open(zipPath, 'r+');
    await file.write(copied, 0, copied.length, after.dataStart);
    await file.close();
    await after.complete(crc32(copied));
    await zip.finish();

    expect(localZip64Fields(zipPath)).toEqual(
      new Map([
        ...entries.map(([name, , , zip64]): [string, boolean] => [name, zip64]),
        ['after.bin', false],
      ]),
    );
    const all = new Map<string, Buffer>([
      ...entries.map(([name, content]): [string, Buffer] => [name, content]),
      ['after.bin', copied],
    ]);
    // a stream reader learns an entry's size only after its data: the listing has no sizes to compare
    expect(bsdtarStreams(zipPath, '-tf').toString()).toBe(
      [...all.keys()].map((name) => `${name}\n`).join(''),
    );
    for (const [name, content] of all)
      expect(bsdtarStreams(zipPath, '-xOf', name).equals(content)).toBe(true);
    expect(pythonReads(zipPath)).toBe(
      [...all].map(([name, content]) => `${name} ${content.length} ${content.length}\n`).join(''),
    );
    execFileSync('unzip', ['-tq', zipPath]);
    const walked = [];
    for await (const entry of completeZipEntries(zipPath))
      walked.push([entry.name, (await buffer(openZipEntryAt(zipPath, entry))).equals(all.get(entry.name)!)]);
    expect(walked).toEqual([...all.keys()].map((name) => [name, true]));
  });

  it('writes a bag to a stream in which only the file of unknown size is ZIP64, read by bsdtar from a pipe and validated', async () => {
    const zipPath = join(dir, 'streamed-bag.zip');
    const writer = new BagZipWriter({ output: createWriteStream(zipPath), rootName: 'bag', spillDir: dir });
    const unknown = randomBytes(300_000);
    const csv = Buffer.from('a,b,c\n1,2,3\n'.repeat(5000));
    await writer.addPayloadFile('unknown.bin', Readable.from([unknown]));
    await writer.addPayloadFile('table.csv', Readable.from([csv]), csv.length);
    const metadata = Buffer.from('{"actions": []}\n');
    await writer.addTagFile('PRESQT_FTS_METADATA.json', Readable.from([metadata]), metadata.length);
    await writer.finalize();

    const zip64 = localZip64Fields(zipPath);
    expect(zip64.get('bag/data/unknown.bin')).toBe(true);
    expect([...zip64].filter(([, field]) => field).map(([name]) => name)).toEqual(['bag/data/unknown.bin']);
    expect(bsdtarStreams(zipPath, '-xOf', 'bag/data/unknown.bin').equals(unknown)).toBe(true);
    expect(bsdtarStreams(zipPath, '-xOf', 'bag/data/table.csv').equals(csv)).toBe(true);
    expect(bsdtarStreams(zipPath, '-tf').toString()).toContain('bag/tagmanifest-sha512.txt\n');
    const opened = await openZip(zipPath);
    try {
      expect(await validateBag(zipBagSource(opened, findBagRoot(opened.entries)))).toMatchObject({
        valid: true,
      });
    } finally {
      opened.close();
    }
    execFileSync('unzip', ['-tq', zipPath]);
    verifyBagZip(zipPath, 'bag');
  });

  it('streams an entry of unknown size past 4 GiB that a stream reader extracts, and the entry after it', async () => {
    const size = 2 ** 32 + 10;
    const after = 'after the big one\n';
    // straight into bsdtar's standard input, which extracts both entries to its standard output (checking each
    // one's CRC-32 and sizes): nothing is written to disk. It reads 1 MiB at a time (-b, in 512-byte records),
    // not 10 KiB: the same reader, with a sixth of the reads and writes of the pipes
    const reader = spawn('bsdtar', ['-xOf', '-', '-b', '2048'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let extracted = 0;
    let tail = Buffer.alloc(0);
    reader.stdout.on('data', (chunk: Buffer) => {
      extracted += chunk.length;
      tail = (chunk.length >= after.length ? chunk : Buffer.concat([tail, chunk])).subarray(-after.length);
    });
    const errors: Buffer[] = [];
    reader.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    const exited = new Promise<number | null>((resolve) => reader.on('close', resolve));
    const zip = new ZipWriter(reader.stdin, join(dir, 'central-big'));
    const written = (async () => {
      expect(await zip.addStream('big.bin', zeroBytes(size), { deflate: false })).toBe(size);
      await zip.addStream('after.txt', Readable.from([Buffer.from(after)]), { deflate: true });
      await zip.finish();
    })();
    const code = await exited;
    expect(Buffer.concat(errors).toString()).toBe('');
    expect(code).toBe(0);
    expect(extracted).toBe(size + after.length);
    expect(tail.toString()).toBe(after);
    await written;
  }, 180_000);

  it('fails an entry that passes 4 GiB when it was announced smaller, instead of giving it sizes its header did not announce', async () => {
    const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
    const zip = new ZipWriter(discard, join(dir, 'central-lie'));
    await expect(
      zip.addStream('lie.bin', zeroBytes(2 ** 32 + 10), { deflate: false, size: 1000 }),
    ).rejects.toThrow('The zip entry lie.bin passed 4 GiB, more than the 1000 bytes announced');
  }, 180_000);

  it('deflates at level 0 into stored blocks that Python, unzip and bsdtar from a pipe inflate', async () => {
    // chunks across the 65,535 bytes of a stored block, one empty, more than the 16 blocks gathered for one
    // write, and an empty entry
    const chunks = [
      randomBytes(0xffff + 1),
      Buffer.alloc(0),
      randomBytes(200_000),
      randomBytes(3),
      randomBytes(16 * 0xffff + 7),
    ];
    const whole = Buffer.concat(chunks);
    const zipPath = join(dir, 'level0.zip');
    const zip = new ZipWriter(createWriteStream(zipPath), join(dir, 'central-level0'));
    await zip.addStream('blocks.bin', Readable.from(chunks), { deflate: true, level: 0 });
    await zip.addStream('empty.bin', Readable.from([]), { deflate: true, level: 0 });
    await zip.finish();
    expect(pythonReads(zipPath)).toBe(`blocks.bin ${whole.length} ${whole.length}\nempty.bin 0 0\n`);
    execFileSync('unzip', ['-tq', zipPath]);
    expect(bsdtarStreams(zipPath, '-xOf', 'blocks.bin').equals(whole)).toBe(true);
    // deflated (method 8) in the central directory, and only the blocks' 5-byte headers added: one a full block
    // of 65,535 bytes, whatever the chunks, and the final block with the rest (empty for the empty entry)
    const listed = execFileSync('python3', [
      '-c',
      'import sys, zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.compress_type, i.compress_size)',
      zipPath,
    ]).toString();
    expect(listed).toBe(`8 ${whole.length + 5 * (Math.floor(whole.length / 0xffff) + 1)}\n8 5\n`);
  });
});
