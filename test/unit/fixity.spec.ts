import { execFileSync } from 'node:child_process';
import {
  copyFile,
  createMultiHasher,
  createStreamHasher,
  GIT_BLOB_SHA1,
  hashFile,
  SEPARATE_SOURCE_DIGEST_FROM,
  setHashThreads,
} from '@app/fixity';
import { ReadBack } from '@app/fixity/hash-pool';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, readdir, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('fixity', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fixity-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the known md5 and sha256 vectors', async () => {
    const empty = join(dir, 'empty');
    const abc = join(dir, 'abc');
    await writeFile(empty, '');
    await writeFile(abc, 'abc');

    expect(await hashFile(empty, ['md5', 'sha256'])).toEqual({
      md5: 'd41d8cd98f00b204e9800998ecf8427e',
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    expect(await hashFile(abc, ['md5', 'sha256'])).toEqual({
      md5: '900150983cd24fb0d6963f7d28e17f72',
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
  });

  it('gives git blob ids that git itself gives (git hash-object), in chunks of any size', async () => {
    const bytes = randomBytes(3 * (1 << 20) + 7);
    const file = join(dir, 'blob.bin');
    await writeFile(file, bytes);
    const byGit = execFileSync('git', ['hash-object', file], { encoding: 'utf8' }).trim();
    const emptyByGit = execFileSync('git', ['hash-object', '--stdin'], {
      input: '',
      encoding: 'utf8',
    }).trim();
    expect(emptyByGit).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');

    const hasher = createStreamHasher([GIT_BLOB_SHA1, 'md5'], bytes.length);
    for (let start = 0; start < bytes.length; start += 700_001)
      await hasher.update(bytes.subarray(start, start + 700_001));
    expect(await hasher.digest()).toEqual({
      [GIT_BLOB_SHA1]: byGit,
      md5: createHash('md5').update(bytes).digest('hex'),
    });
    const empty = createStreamHasher([GIT_BLOB_SHA1], 0);
    expect(await empty.digest()).toEqual({ [GIT_BLOB_SHA1]: emptyByGit });
    expect(() => createStreamHasher([GIT_BLOB_SHA1])).toThrow('needs the size');
  });

  it('hashes a multi-MiB file on a hashing thread, matching crypto over the same bytes', async () => {
    // 5 MiB + 123 bytes of a non-repeating pattern, so that chunk boundaries matter.
    const bytes = Buffer.alloc(5 * (1 << 20) + 123);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >>> 11)) & 0xff;
    const path = join(dir, 'big.bin');
    await writeFile(path, bytes);
    const digests = await hashFile(path, ['md5', 'sha256', 'sha512']);

    expect(digests).toEqual({
      md5: createHash('md5').update(bytes).digest('hex'),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sha512: createHash('sha512').update(bytes).digest('hex'),
    });
  });

  it('answers many concurrent requests, each with its own file, and rejects a missing file with its code', async () => {
    const paths = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const path = join(dir, `f${i}`);
        await writeFile(path, `content ${i}`);
        return path;
      }),
    );
    const digests = await Promise.all(paths.map((path) => hashFile(path, ['sha256'])));
    digests.forEach((digest, i) =>
      expect(digest.sha256).toBe(createHash('sha256').update(`content ${i}`).digest('hex')),
    );
    await expect(hashFile(join(dir, 'missing'), ['md5'])).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('copies a file into a new one on a hashing thread, up to the length given, with the digests of what it copied and of what it stored', async () => {
    const bytes = randomBytes(2 * (1 << 20) + 99);
    const source = join(dir, 'source');
    await writeFile(source, bytes);
    const copy = (name: string, length: number, renameTo?: string) =>
      copyFile(source, length, { path: join(dir, name), readBack: ['sha256'], renameTo }, ['md5', 'sha512']);
    const digests = (data: Buffer) => ({
      copied: {
        md5: createHash('md5').update(data).digest('hex'),
        sha512: createHash('sha512').update(data).digest('hex'),
      },
      stored: { sha256: createHash('sha256').update(data).digest('hex') },
      length: data.length,
    });
    expect(await copy('whole', bytes.length)).toEqual(digests(bytes));
    expect((await readFile(join(dir, 'whole'))).equals(bytes)).toBe(true);
    expect((await stat(join(dir, 'whole'))).mode & 0o777).toBe(0o644);
    // a file that grew since it was listed is copied up to its listed size; one that shrank, to its end
    expect(await copy('head', 1000)).toEqual(digests(bytes.subarray(0, 1000)));
    expect((await readFile(join(dir, 'head'))).equals(bytes.subarray(0, 1000))).toBe(true);
    expect(await copy('longer', bytes.length + 5)).toEqual(digests(bytes));
    // renamed once complete; nothing is read back when nothing is asked
    expect(await copy('partial', bytes.length, join(dir, 'renamed'))).toEqual(digests(bytes));
    expect((await readFile(join(dir, 'renamed'))).equals(bytes)).toBe(true);
    expect(await copyFile(source, 10, { path: join(dir, 'unread'), readBack: [] }, [])).toEqual({
      copied: {},
      stored: {},
      length: 10,
    });
    // never over a file, never through a symlink
    await expect(copy('whole', bytes.length)).rejects.toMatchObject({ code: 'EEXIST' });
    await symlink(source, join(dir, 'link'));
    await expect(
      copyFile(join(dir, 'link'), 10, { path: join(dir, 'through'), readBack: ['sha256'] }, ['md5']),
    ).rejects.toMatchObject({ code: 'ELOOP', syscall: 'open' });
    expect(await readdir(dir)).not.toContain('through');
  });

  describe("a big copy, read back as it is written, its source digested by a read of its own on the read-back's thread", () => {
    const FROM = SEPARATE_SOURCE_DIGEST_FROM;
    const MiB = 1 << 20;
    const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
    const copyReadBack = (source: string, name: string, length: number) =>
      copyFile(source, length, { path: join(dir, name), readBack: ['sha256'] }, ['md5', 'sha256']);

    it('gives the digests crypto gives, of the source and of the file stored, around the size it starts at', async () => {
      const bytes = randomBytes(FROM + 3 * MiB);
      const source = join(dir, 'source');
      await writeFile(source, bytes);
      for (const size of [FROM - 1, FROM, FROM + 1, FROM + MiB, FROM + 2 * MiB - 1, FROM + 3 * MiB]) {
        const part = bytes.subarray(0, size);
        expect(await copyReadBack(source, `copy-${size}`, size)).toEqual({
          copied: { md5: md5(part), sha256: sha256(part) },
          stored: { sha256: sha256(part) },
          length: size,
        });
        expect((await readFile(join(dir, `copy-${size}`))).equals(part)).toBe(true);
      }
      const renamed = join(dir, 'renamed');
      await copyFile(source, FROM, { path: join(dir, 'big'), readBack: ['sha256'], renameTo: renamed }, []);
      expect((await readFile(renamed)).equals(bytes.subarray(0, FROM))).toBe(true);
      setHashThreads(1);
      try {
        expect(await copyReadBack(source, 'one-thread', bytes.length)).toEqual({
          copied: { md5: md5(bytes), sha256: sha256(bytes) },
          stored: { sha256: sha256(bytes) },
          length: bytes.length,
        });
      } finally {
        setHashThreads(2);
      }
    });

    it("gives the source's digest of what its own read found, so a byte changed after the copy read it makes the two differ", async () => {
      const length = FROM + 10;
      const bytes = randomBytes(length);
      const source = join(dir, 'source');
      await writeFile(source, bytes);
      // the source's digest is read on the read-back's thread: the md5 of a sparse GiB holds that thread for a
      // second or more (the hashing threads refuse a FIFO, whose read would hold it until a writer came), so
      // the test changes the source after the copy, 32 MiB on the other thread, and before that read
      const sparse = join(dir, 'held');
      await writeFile(sparse, '');
      await truncate(sparse, 1 << 30);
      // pool.pick takes the threads in turn: the held read lands on the thread the read-back takes next but one
      const held = hashFile(sparse, ['md5']);
      await hashFile(source, ['md5'], { start: 0, length: 1 });
      const target = join(dir, 'changed');
      const copying = copyFile(source, length, { path: target, readBack: ['sha256'] }, ['sha256']);
      while (((await stat(target).catch(() => null))?.size ?? 0) < length)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const changed = Buffer.from(bytes);
      changed[MiB + 7] ^= 0xff;
      await writeFile(source, changed);
      await held;
      expect(await copying).toEqual({
        copied: { sha256: sha256(changed) },
        stored: { sha256: sha256(bytes) },
        length,
      });
    });
  });

  it('stops reading back a write that failed', async () => {
    const to = await open(join(dir, 'failed'), 'wx+');
    try {
      const readBack = new ReadBack(to.fd, ['sha256']);
      await to.write(Buffer.from('partial'));
      await expect(readBack.abandon()).resolves.toBeUndefined();
      await expect(readBack.end()).rejects.toThrow('abandoned');
    } finally {
      await to.close();
    }
  });

  it('multi-hasher gives the same digests for a stream fed in pieces as for the whole', () => {
    const text = Buffer.from('The quick brown fox jumps over the lazy dog');
    const hasher = createMultiHasher(['md5', 'sha256']);
    for (let i = 0; i < text.length; i += 7) hasher.update(text.subarray(i, i + 7));

    expect(hasher.digest()).toEqual({
      md5: '9e107d9d372bb6826bd81d3542a419d6',
      sha256: 'd7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592',
    });
  });

  it('refuses an unknown algorithm before reading, and a missing file', async () => {
    expect(() => createMultiHasher(['md5', 'no-such-hash'])).toThrow();
    await expect(hashFile(join(dir, 'missing'), ['md5'])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('createStreamHasher (hashing on a thread)', () => {
  const expected = (data: Buffer, algorithm: string) => createHash(algorithm).update(data).digest('hex');

  it('gives the same digests as hashing in place, whatever the chunk sizes', async () => {
    const data = randomBytes(5 * (1 << 20) + 123);
    for (const chunkSize of [1000, 1 << 20, 3 << 20, data.length]) {
      const hasher = createStreamHasher(['md5', 'sha256', 'sha512']);
      // chunks are reused by the caller once update resolves, as a stream's buffers may be
      const scratch = Buffer.alloc(Math.min(chunkSize, data.length));
      for (let start = 0; start < data.length; start += chunkSize) {
        const piece = data.subarray(start, start + chunkSize);
        piece.copy(scratch);
        await hasher.update(scratch.subarray(0, piece.length));
      }
      expect(await hasher.digest()).toEqual({
        md5: expected(data, 'md5'),
        sha256: expected(data, 'sha256'),
        sha512: expected(data, 'sha512'),
      });
    }
  });

  // Streams of a known size up to 64 KiB are hashed on the calling thread; the digests must not tell.
  it('gives the same digests for small streams of a known size, and refuses bytes beyond that size', async () => {
    for (const size of [1, 4096, 64 << 10, (64 << 10) + 1]) {
      const data = randomBytes(size);
      const hasher = createStreamHasher(['md5', 'sha512', GIT_BLOB_SHA1], size);
      for (let start = 0; start < size; start += 5000)
        await hasher.update(data.subarray(start, start + 5000));
      const gitBlob = createHash('sha1').update(`blob ${size}\0`).update(data).digest('hex');
      expect(await hasher.digest()).toEqual({
        md5: expected(data, 'md5'),
        sha512: expected(data, 'sha512'),
        [GIT_BLOB_SHA1]: gitBlob,
      });
      const overfull = createStreamHasher(['md5'], size);
      await overfull.update(data);
      await expect(overfull.update(Buffer.from('x'))).rejects.toThrow(`more than the ${size} bytes`);
      overfull.drop();
    }
  });

  it('keeps concurrent streams apart, and an empty stream has the empty digest', async () => {
    const inputs = [randomBytes(3 << 20), randomBytes(777), Buffer.alloc(0), randomBytes(2 << 20)];
    const hashers = inputs.map(() => createStreamHasher(['sha256']));
    await Promise.all(
      inputs.map(async (data, i) => {
        for (let start = 0; start < data.length; start += 65_536)
          await hashers[i].update(data.subarray(start, start + 65_536));
      }),
    );
    const digests = await Promise.all(hashers.map((hasher) => hasher.digest()));
    expect(digests.map((digest) => digest.sha256)).toEqual(inputs.map((data) => expected(data, 'sha256')));
  });

  it('goes on working after dropped streams, and refuses an unknown algorithm at once', async () => {
    for (let i = 0; i < 20; i++) {
      const dropped = createStreamHasher(['md5']);
      await dropped.update(randomBytes(1000));
      dropped.drop();
    }
    const data = randomBytes(10_000);
    const hasher = createStreamHasher(['md5']);
    await hasher.update(data);
    expect((await hasher.digest()).md5).toBe(expected(data, 'md5'));
    expect(() => createStreamHasher(['sha256', 'no-such-hash'])).toThrow(/no-such-hash/);
  });

  // A chunk sent after the drop kept the thread referenced with no stream open, so a process that had
  // dropped one never exited; its slots, given to the next stream, could be overwritten too.
  it('fails an update still on its way when the stream is dropped, instead of sending it', async () => {
    const hasher = createStreamHasher(['md5']);
    const updating = hasher.update(randomBytes(3 << 20));
    hasher.drop();
    await expect(updating).rejects.toThrow('the stream was dropped');
  });
});
