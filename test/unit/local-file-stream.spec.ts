import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import type { readLocalFile as ReadLocalFile } from '@app/common';

const MIB = 1 << 20;
let dir: string;
let file: string;
const bytes = randomBytes(24 * MIB);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-file-stream-'));
  file = join(dir, 'data.bin');
  writeFileSync(file, bytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete (globalThis as { gc?: unknown }).gc;
});

/** The module afresh, so that its count of read buffers starts at zero. */
function freshReadLocalFile(): typeof ReadLocalFile {
  let loaded: typeof ReadLocalFile | undefined;
  jest.isolateModules(() => {
    ({ readLocalFile: loaded } = jest.requireActual<{ readLocalFile: typeof ReadLocalFile }>(
      '../../libs/common/src/local-file-stream',
    ));
  });
  return loaded!;
}

describe('readLocalFile', () => {
  it('gives the bytes fs.createReadStream gives: a whole file, a range, or an opened descriptor', async () => {
    const readLocalFile = freshReadLocalFile();
    expect((await buffer(readLocalFile(file))).equals(bytes)).toBe(true);
    const range = await buffer(readLocalFile(file, { start: 5, end: MIB + 9, highWaterMark: 4096 }));
    expect(range.equals(bytes.subarray(5, MIB + 10))).toBe(true);
    const fd = openSync(file, 'r');
    const stream = readLocalFile('', { fd, start: 0, end: 99 });
    expect((await buffer(stream)).equals(bytes.subarray(0, 100))).toBe(true);
    expect(stream.closed).toBe(true);
  });

  it("collects the young generation once every 8 MiB of read buffers, over all the process's streams", async () => {
    const collections: unknown[] = [];
    (globalThis as { gc?: unknown }).gc = (options: unknown) => collections.push(options);
    const readLocalFile = freshReadLocalFile();
    // two streams of 12 MiB each, read in 1 MiB buffers: 24 MiB in all
    const halves = [0, 12 * MIB].map((start) =>
      buffer(readLocalFile(file, { start, end: start + 12 * MIB - 1, highWaterMark: MIB })),
    );
    expect(Buffer.concat(await Promise.all(halves)).equals(bytes)).toBe(true);
    expect(collections).toEqual([{ type: 'minor' }, { type: 'minor' }, { type: 'minor' }]);
  });
});
