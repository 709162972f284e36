import { completeZipEntries, openZipEntryAt } from '@app/archive';
import { BagZipWriter } from '@app/bagit';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

/** Payload files of the test zip: stored and deflated, empty, and data that holds a descriptor signature. */
function payloadFiles(): Map<string, Buffer> {
  const signature = Buffer.from([0x50, 0x4b, 0x07, 0x08]);
  const trap = Buffer.concat([randomBytes(1000), signature, Buffer.alloc(12, 0xff), randomBytes(70_000)]);
  return new Map([
    ['first.bin', randomBytes(300_000)],
    ['notes.txt', Buffer.from('field notes, line after line\n'.repeat(5000))],
    ['trap.bin', trap],
    ['empty.bin', Buffer.alloc(0)],
    ['deep/last.csv', Buffer.from('a,b\n1,2\n'.repeat(40_000))],
  ]);
}

describe('completeZipEntries (resuming a zip whose writer was killed)', () => {
  let dir: string;
  let zipPath: string;
  const files = payloadFiles();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'partial-zip-'));
    zipPath = join(dir, 'bag.zip');
    const writer = new BagZipWriter({ output: zipPath, rootName: 'bag', spillDir: dir });
    for (const [path, content] of files) await writer.addPayloadFile(path, Readable.from([content]));
    await writer.finalize();
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The payload files found complete in `path`, with their contents as read back through openZipEntryAt. */
  async function found(path: string, sizeHints = false): Promise<Map<string, Buffer>> {
    const result = new Map<string, Buffer>();
    const hint = (name: string) => (sizeHints ? files.get(name.replace('bag/data/', ''))?.length : undefined);
    for await (const entry of completeZipEntries(path, hint)) {
      if (!entry.name.startsWith('bag/data/')) continue;
      const content = await buffer(openZipEntryAt(path, entry));
      expect(content.length).toBe(entry.size);
      result.set(entry.name.slice('bag/data/'.length), content);
    }
    return result;
  }

  it('finds every entry of a complete zip, with its exact bytes', async () => {
    for (const hints of [false, true]) {
      const entries = await found(zipPath, hints);
      expect([...entries.keys()]).toEqual([...files.keys()]);
      for (const [path, content] of entries) expect(content.equals(files.get(path)!)).toBe(true);
    }
  });

  it('finds only the entries written completely before the cut, wherever the zip is cut', async () => {
    const whole = await readFile(zipPath);
    const cutPath = join(dir, 'cut.zip');
    let previous = 0;
    const lengths = Array.from({ length: Math.ceil(whole.length / 9_973) }, (_, i) => i * 9_973);
    // cut into the central directory: every entry is complete
    for (const length of [...lengths, whole.length - 1]) {
      await writeFile(cutPath, whole.subarray(0, length));
      const entries = await found(cutPath);
      // a prefix of the files, growing with the length, each one intact
      expect([...entries.keys()]).toEqual([...files.keys()].slice(0, entries.size));
      expect(entries.size).toBeGreaterThanOrEqual(previous);
      previous = entries.size;
      for (const [path, content] of entries) expect(content.equals(files.get(path)!)).toBe(true);
    }
    expect(previous).toBe(files.size);
  });

  it('does not take an entry whose descriptor is cut off as complete', async () => {
    const whole = await readFile(zipPath);
    const cutPath = join(dir, 'cut-descriptor.zip');
    await writeFile(cutPath, whole);
    const all = [];
    for await (const entry of completeZipEntries(zipPath)) all.push(entry);
    const first = all.find((entry) => entry.name === 'bag/data/first.bin')!;
    // the data is all there but the last byte of its descriptor is not
    await truncate(cutPath, first.dataStart + first.compressedSize + 15);
    expect((await found(cutPath)).size).toBe(0);
  });

  it('finds nothing in a file that is not a zip', async () => {
    const notZip = join(dir, 'not.zip');
    await writeFile(notZip, randomBytes(5000));
    expect((await found(notZip)).size).toBe(0);
  });
});
