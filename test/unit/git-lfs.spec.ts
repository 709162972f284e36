import { createHash } from 'node:crypto';
import { lfsPointerBlobId, lfsPointerText, mayBeLfsPointer, parseLfsPointer } from '@app/connectors/git-lfs';

const oid = createHash('sha256').update('content').digest('hex');

describe('Git LFS pointers', () => {
  it("reads the spec's one encoding of a pointer, and the pre-release version URL git-lfs still reads", () => {
    const pointer = Buffer.from(
      `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize 12345\n`,
    );
    expect(parseLfsPointer(pointer)).toEqual({ oid, size: 12345 });
    const hawser = Buffer.from(`version https://hawser.github.com/spec/v1\noid sha256:${oid}\nsize 0\n`);
    expect(parseLfsPointer(hawser)).toEqual({ oid, size: 0 });
    expect(lfsPointerText({ oid, size: 12345 })).toBe(pointer.toString());
  });

  it('takes nothing else for a pointer', () => {
    const line = (version: string, hash: string, size: string) =>
      Buffer.from(`version ${version}\noid sha256:${hash}\nsize ${size}\n`);
    const v1 = 'https://git-lfs.github.com/spec/v1';
    for (const other of [
      line('https://example.org/spec/v1', oid, '1'),
      line(v1, oid.toUpperCase(), '1'),
      line(v1, oid.slice(1), '1'),
      line(v1, oid, '01'),
      line(v1, oid, '-1'),
      line(v1, oid, '99999999999999999'),
      Buffer.from(`version ${v1}\r\noid sha256:${oid}\r\nsize 1\r\n`),
      Buffer.from(`version ${v1}\noid sha256:${oid}\nsize 1`),
      // extension keys: content extensions must still transform, which this service cannot do
      Buffer.from(`version ${v1}\next-0-foo sha256:${oid}\noid sha256:${oid}\nsize 1\n`),
    ])
      expect(parseLfsPointer(other)).toBeNull();
  });

  it('reads only blobs of the sizes pointers have, and knows the blob id a pointer has in git', () => {
    expect([119, 120, 200, 201].map(mayBeLfsPointer)).toEqual([false, true, true, false]);
    const text = Buffer.from(lfsPointerText({ oid, size: 7 }));
    expect(mayBeLfsPointer(text.length)).toBe(true);
    const blobId = createHash('sha1').update(`blob ${text.length}\0`).update(text).digest('hex');
    expect(lfsPointerBlobId({ oid, size: 7 })).toBe(blobId);
  });
});
