import { DEFAULT_ZIP_LIMITS, openZip, type ZipLimits } from '@app/archive';
import { ServiceError } from '@app/common';
import { hashFile } from '@app/fixity';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { patchCentralDirectory, zipOf } from '../support/bags';

describe('openZip', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function saved(zip: Buffer): Promise<string> {
    const path = join(dir, 'upload.zip');
    await writeFile(path, zip);
    return path;
  }

  /** The 400 message openZip refuses the zip with. */
  async function refusal(zip: Buffer, limits?: ZipLimits): Promise<string> {
    const error: unknown = await openZip(await saved(zip), limits).then(
      (archive) => archive.close(),
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(400);
    return (error as ServiceError).message;
  }

  it('lists the entries and streams their decompressed bytes', async () => {
    const random = randomBytes(300_000);
    const zip = await openZip(
      await saved(
        await zipOf([
          { name: 'bag/' },
          { name: 'bag/notes.txt', content: 'hello '.repeat(1000), deflate: true },
          { name: 'bag/data/random.bin', content: random },
        ]),
      ),
    );
    try {
      expect(zip.entries).toMatchObject([
        { path: 'bag', size: 0, compressedSize: 0, isDirectory: true },
        { path: 'bag/notes.txt', size: 6000, compressedSize: expect.any(Number), isDirectory: false },
        { path: 'bag/data/random.bin', size: 300_000, compressedSize: 300_000, isDirectory: false },
      ]);
      expect(zip.entries[1].compressedSize).toBeLessThan(100);
      expect(await text(await zip.openEntry('bag/notes.txt'))).toBe('hello '.repeat(1000));
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openEntry('bag/data/random.bin')) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(random)).toBe(true);
      await expect(zip.openEntry('bag/missing')).rejects.toThrow('no file entry');
    } finally {
      zip.close();
    }
  });

  it('reads a zip written with ZIP64 records', async () => {
    const zip = await openZip(
      await saved(
        await zipOf([{ name: 'big/a.txt', content: 'sixty-four', deflate: true }], { forceZip64: true }),
      ),
    );
    expect(zip.entries).toMatchObject([
      { path: 'big/a.txt', size: 10, compressedSize: expect.any(Number), isDirectory: false },
    ]);
    expect(await text(await zip.openEntry('big/a.txt'))).toBe('sixty-four');
    zip.close();
  });

  it('refuses a file that is not a zip', async () => {
    expect(await refusal(Buffer.from('just some text, no zip here'))).toBe(
      "The file provided, 'presqt-file', is not a zip file.",
    );
  });

  it('refuses an empty zip', async () => {
    expect(await refusal(await zipOf([]))).toBe('The zip file is empty: it holds no entries.');
  });

  it.each([
    ['../evil.txt', "contains a '..' segment, which would reach outside its folder"],
    ['bag/../../x', "contains a '..' segment, which would reach outside its folder"],
    ['/etc/passwd', 'is an absolute path'],
    ['C:/Windows/x', 'starts with a drive letter'],
    ['bag\\data\\a', "contains a backslash (names must use '/' between folders)"],
    ['bag/a\0.txt', 'contains a NUL character'],
    ['bag//a.txt', "contains an empty or '.' segment"],
  ])('refuses the entry name %j', async (name, rule) => {
    // archiver won't write such names, so a harmless one of the same length is replaced
    const placeholder = 'x'.repeat(Buffer.byteLength(name));
    const zip = patchCentralDirectory(await zipOf([{ name: placeholder, content: 'x' }]), 0, { name });
    expect(await refusal(zip)).toBe(`The zip entry ${JSON.stringify(name)} ${rule}; such zips are refused.`);
  });

  it('refuses a symbolic link', async () => {
    const zip = await zipOf([
      { name: 'bag/data/a.txt', content: 'a' },
      { name: 'bag/data/link', symlinkTo: '/etc/passwd' },
    ]);
    expect(await refusal(zip)).toBe(
      'The zip entry "bag/data/link" is a symbolic link; such zips are refused.',
    );
  });

  it('refuses an entry that is neither a file nor a directory (a FIFO)', async () => {
    const fifo = (0o010644 << 16) >>> 0;
    const zip = patchCentralDirectory(await zipOf([{ name: 'bag/pipe', content: '' }]), 0, {
      externalAttributes: fifo,
    });
    expect(await refusal(zip)).toBe(
      'The zip entry "bag/pipe" is neither a regular file nor a directory; such zips are refused.',
    );
  });

  it('refuses an encrypted entry', async () => {
    const plain = await zipOf([{ name: 'bag/secret.txt', content: 'secret', deflate: true }]);
    const encrypted = patchCentralDirectory(plain, 0, { generalPurposeFlags: 0x0809 });
    expect(await refusal(encrypted)).toBe(
      'The zip entry "bag/secret.txt" is encrypted; such zips are refused.',
    );
  });

  it('refuses a name that appears twice', async () => {
    const zip = await zipOf([
      { name: 'bag/a.txt', content: 'one' },
      { name: 'bag/a.txt', content: 'two' },
    ]);
    expect(await refusal(zip)).toBe('The zip entry "bag/a.txt" appears twice.');
  });

  it('refuses more entries than the limit, before reading them', async () => {
    const zip = await zipOf(['a', 'b', 'c', 'd'].map((name) => ({ name: `bag/${name}` })));
    expect(await refusal(zip, { ...DEFAULT_ZIP_LIMITS, maxEntries: 3 })).toBe(
      'The zip holds 4 entries, over the limit of 3.',
    );
  });

  it('refuses more decompressed bytes than the limit', async () => {
    const zip = await zipOf([
      { name: 'bag/a', content: randomBytes(600) },
      { name: 'bag/b', content: randomBytes(600) },
    ]);
    expect(await refusal(zip, { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: 1000 })).toBe(
      "The zip's entries add up to more than 1000 bytes once decompressed, over the limit.",
    );
  });

  it('refuses a zip bomb: 50 MiB of zeros deflated', async () => {
    const zip = await zipOf([{ name: 'bag/zeros', content: Buffer.alloc(50 << 20), deflate: true }]);
    expect(await refusal(zip)).toMatch(
      /^The zip entry "bag\/zeros" expands from \d+ to 52428800 bytes, a ratio over 200:1 as in a zip bomb; such zips are refused\.$/,
    );
  });

  it('refuses a zip bomb spread over entries each below the ratio floor', async () => {
    const zip = await zipOf(
      Array.from({ length: 8 }, (_, i) => ({
        name: `bag/zeros${i}`,
        content: Buffer.alloc(1 << 20),
        deflate: true,
      })),
    );
    expect(await refusal(zip)).toMatch(/^The zip expands from \d+ to 8388608 bytes, a ratio over 200:1/);
  });

  it('allows a highly compressible entry below the ratio floor', async () => {
    const zip = await openZip(
      await saved(await zipOf([{ name: 'bag/spaces.txt', content: ' '.repeat(500_000), deflate: true }])),
    );
    expect(zip.entries).toHaveLength(1);
    zip.close();
  });

  it('fails the stream, with a 400, of an entry holding more bytes than it declares', async () => {
    const honest = await zipOf([{ name: 'bag/a.txt', content: 'x'.repeat(5000), deflate: true }]);
    const zip = await openZip(await saved(patchCentralDirectory(honest, 0, { uncompressedSize: 100 })));
    const error: unknown = await text(await zip.openEntry('bag/a.txt')).catch(
      (rejection: unknown) => rejection,
    );
    zip.close();
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).message).toMatch(/^The zip entry "bag\/a.txt" is damaged: /);
  });

  it('locates a stored entry for hashing in place, whose digests match its bytes; a compressed one is streamed', async () => {
    const random = randomBytes(300_000);
    const zip = await openZip(
      await saved(
        await zipOf([
          { name: 'bag/notes.txt', content: 'hello '.repeat(1000), deflate: true },
          { name: 'bag/data/random.bin', content: random },
        ]),
      ),
    );
    try {
      expect(await zip.storedData('bag/notes.txt')).toBeNull();
      const data = await zip.storedData('bag/data/random.bin');
      expect(data).toMatchObject({ length: 300_000 });
      expect(await hashFile(data!.file, ['sha256', 'md5'], data!)).toEqual({
        sha256: createHash('sha256').update(random).digest('hex'),
        md5: createHash('md5').update(random).digest('hex'),
      });
    } finally {
      zip.close();
    }
  });
});
