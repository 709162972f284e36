import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import archiver from 'archiver';
import { spillCentralDirectory } from '@app/bagit/spilled-central-directory';

/** Python's zipfile (no code shared with ours): every entry's name and content, after testzip() passed. */
function readWithPython(zipFile: string): Record<string, string> {
  const script = [
    'import json, sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    'assert z.testzip() is None',
    'print(json.dumps({i.filename: z.read(i).decode() for i in z.infolist()}))',
  ].join('\n');
  return JSON.parse(
    execFileSync('python3', ['-c', script, zipFile], { maxBuffer: 64 << 20, encoding: 'utf8' }),
  );
}

describe('a zip whose central directory waits on disk', () => {
  it('is read whole by another implementation, past the 65,535 entries that need ZIP64 end records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'central-directory-'));
    const zipFile = join(dir, 'many.zip');
    const archive = archiver('zip', { zlib: { level: 1 } });
    const written = finished(archive.pipe(createWriteStream(zipFile)));
    const spilled = spillCentralDirectory(archive, join(dir, 'central-directory'));
    const entries = 66_000;
    const expected: Record<string, string> = {};
    for (let i = 0; i < entries; i++) expected[`bag/data/f${i}.txt`] = `${i}\n`;
    // a deflated entry (data descriptor) and a name that is not ASCII (UTF-8 flag)
    expected['bag/data/notes.md'] = 'deflated '.repeat(100);
    expected['bag/data/résumé.txt'] = 'é\n';
    for (const [name, content] of Object.entries(expected)) {
      const added = new Promise((resolve) => archive.once('entry', resolve));
      archive.append(Buffer.from(content), { name, store: !name.endsWith('.md') });
      await added;
    }
    await archive.finalize();
    await written;
    spilled.close();

    expect(readWithPython(zipFile)).toEqual(expected);
  }, 60_000);
});
