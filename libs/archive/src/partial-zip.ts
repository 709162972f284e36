import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { readLocalFile } from '@app/common';

/** One complete entry of a zip whose writing was interrupted. */
export interface PartialZipEntry {
  name: string;
  deflated: boolean;
  /** where the entry's (compressed) bytes start in the file */
  dataStart: number;
  compressedSize: number;
  size: number;
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);
const USES_DATA_DESCRIPTOR = 0x08;
const STORED = 0;
const DEFLATED = 8;
const CHUNK = 1 << 20;
const MAX32 = 0xffffffff;
const ZIP64_EXTRA = 0x0001;

/**
 * The complete entries of a zip that a killed process was still writing (it has no central directory): walks
 * the local file headers from the start and stops at the first entry whose data or data descriptor is not
 * all there. Meant for zips this service wrote itself, to resume them; uploads are read with openZip.
 *
 * A streamed entry's sizes are only in the data descriptor after its data. `storedSize` may tell the size of
 * an entry that was stored uncompressed, so its descriptor is checked in place instead of searched for.
 */
export async function* completeZipEntries(
  path: string,
  storedSize: (name: string) => number | undefined = () => undefined,
): AsyncGenerator<PartialZipEntry> {
  const file = await open(path, 'r');
  try {
    const fileSize = (await file.stat()).size;
    let offset = 0;
    for (;;) {
      const header = await readAt(file, offset, 30);
      if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_HEADER) return;
      const flags = header.readUInt16LE(6);
      const method = header.readUInt16LE(8);
      if (method !== STORED && method !== DEFLATED) return;
      const nameLength = header.readUInt16LE(26);
      const extraLength = header.readUInt16LE(28);
      const dataStart = offset + 30 + nameLength + extraLength;
      const nameAndExtra = await readAt(file, offset + 30, nameLength + extraLength);
      const name = nameAndExtra.subarray(0, nameLength).toString('utf8');
      const zip64 = zip64Field(nameAndExtra.subarray(nameLength));
      let sizes: { compressedSize: number; size: number; end: number } | null;
      if (flags & USES_DATA_DESCRIPTOR) {
        const hint = method === STORED ? storedSize(name) : undefined;
        const wide = zip64 !== null;
        sizes =
          (hint !== undefined ? await descriptorAt(file, dataStart, dataStart + hint, wide) : null) ??
          (await findDescriptor(file, dataStart, fileSize, wide));
      } else {
        sizes = headerSizes(header, zip64, dataStart);
      }
      if (!sizes || sizes.end > fileSize) return;
      yield {
        name,
        deflated: method === DEFLATED,
        dataStart,
        compressedSize: sizes.compressedSize,
        size: sizes.size,
      };
      offset = sizes.end;
    }
  } finally {
    await file.close();
  }
}

/** The uncompressed bytes of an entry found by completeZipEntries. */
export function openZipEntryAt(path: string, entry: PartialZipEntry): Readable {
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = readLocalFile(path, {
    start: entry.dataStart,
    end: entry.dataStart + entry.compressedSize - 1,
    highWaterMark: CHUNK,
  });
  if (!entry.deflated) return raw;
  const inflate = createInflateRaw();
  raw.on('error', (error) => inflate.destroy(error));
  return raw.pipe(inflate);
}

/** A local header's ZIP64 extended information field (its sizes), when its extra fields have one. */
function zip64Field(extra: Buffer): Buffer | null {
  for (let field = 0; field + 4 <= extra.length; field += 4 + extra.readUInt16LE(field + 2))
    if (extra.readUInt16LE(field) === ZIP64_EXTRA)
      return extra.subarray(field + 4, field + 4 + extra.readUInt16LE(field + 2));
  return null;
}

/**
 * The sizes in a local header written after its data; a ZIP64 entry's are in its ZIP64 field (both sizes: a
 * local header's field holds both). Null when they are not there.
 */
function headerSizes(
  header: Buffer,
  zip64: Buffer | null,
  dataStart: number,
): { compressedSize: number; size: number; end: number } | null {
  let compressedSize = header.readUInt32LE(18);
  let size = header.readUInt32LE(22);
  if (compressedSize === MAX32 || size === MAX32) {
    if (zip64 === null || zip64.length < 16) return null;
    size = Number(zip64.readBigUInt64LE(0));
    compressedSize = Number(zip64.readBigUInt64LE(8));
  }
  return { compressedSize, size, end: dataStart + compressedSize };
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * The sizes in a data descriptor at `at`, when one is there and agrees with the data's length: 8 bytes each
 * when the local header has a ZIP64 field (`wide`), else 4 (APPNOTE 4.3.9.2), and 8 for data of 4 GiB or more,
 * which 4 bytes cannot count. Null otherwise.
 */
async function descriptorAt(
  file: FileHandle,
  dataStart: number,
  at: number,
  wide: boolean,
): Promise<{ compressedSize: number; size: number; end: number } | null> {
  const length = at - dataStart;
  const descriptor = await readAt(file, at, wide || length >= MAX32 ? 24 : 16);
  if (!descriptor.subarray(0, 4).equals(DATA_DESCRIPTOR)) return null;
  if (descriptor.length === 16 && descriptor.readUInt32LE(8) === length)
    return { compressedSize: length, size: descriptor.readUInt32LE(12), end: at + 16 };
  if (descriptor.length === 24 && Number(descriptor.readBigUInt64LE(8)) === length)
    return { compressedSize: length, size: Number(descriptor.readBigUInt64LE(16)), end: at + 24 };
  return null;
}

/**
 * Searches the data for its descriptor. The signature may also occur inside the data, so a candidate counts
 * only when the compressed size it records is exactly the distance from the data's start.
 */
async function findDescriptor(
  file: FileHandle,
  dataStart: number,
  fileSize: number,
  wide: boolean,
): Promise<{ compressedSize: number; size: number; end: number } | null> {
  const buffer = Buffer.alloc(CHUNK);
  // chunks overlap by three bytes, so a signature split between two is found once, in the second
  for (let position = dataStart; position < fileSize; position += CHUNK - 3) {
    const { bytesRead } = await file.read(buffer, 0, CHUNK, position);
    const chunk = buffer.subarray(0, bytesRead);
    for (
      let hit = chunk.indexOf(DATA_DESCRIPTOR);
      hit !== -1;
      hit = chunk.indexOf(DATA_DESCRIPTOR, hit + 1)
    ) {
      const sizes = await descriptorAt(file, dataStart, position + hit, wide);
      if (sizes) return sizes;
    }
    if (bytesRead < CHUNK) break;
  }
  return null;
}
