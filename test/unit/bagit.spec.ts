import { openZip } from '@app/archive';
import {
  BagZipWriter,
  decodeManifestPath,
  directoryBagSource,
  encodeManifestPath,
  findBagRoot,
  validateBag,
  zipBagSource,
  type BagValidation,
  type PayloadFile,
} from '@app/bagit';
import { ServiceError } from '@app/common';
import { execFileSync } from 'node:child_process';
import { verifyBagZip } from '../support/jobs';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { access, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { editText, makeBagZip } from '../support/bags';

const FIXTURES = join(__dirname, '..', '..', '..', 'shared', 'fixtures');
const SUITE = join(FIXTURES, 'bagit-conformance');
/** the suite's v1.0 bags, which the shared fixtures lack (see its README) */
const SUITE_V1 = join(__dirname, '..', 'fixtures', 'bagit-conformance');

/** Why each bag the suite holds invalid must fail, so that it fails for that reason and not another. */
const INVALID_BECAUSE: Record<string, string> = {
  'v0.97/invalid/baginfo-missing-encoding':
    'bagit.txt has no line 2: it must be exactly "BagIt-Version: M.N" and "Tag-File-Character-Encoding: ENCODING"',
  'v0.97/invalid/bom-in-bagit.txt': 'bagit.txt starts with a byte-order mark',
  'v0.97/invalid/corrupt-data-file':
    'Payload-Oxum validation failed: expected 2 files and 58 bytes, found 2 files and 66',
  'v0.97/invalid/corrupt-tag-file': 'Checksum of bag-info.txt in tagmanifest-md5.txt does not match',
  'v0.97/invalid/extra-file-in-bag': 'data/bar is in the bag but not listed in any payload manifest',
  'v0.97/invalid/invalid-version-number':
    'bagit.txt line 1 is not "BagIt-Version: M.N": "BagIt-Version: .97"',
  'v0.97/invalid/missing-baginfo': 'bag-info.txt is listed in tagmanifest-md5.txt but missing from the bag',
  'v0.97/invalid/missing-bagit.txt': 'bagit.txt is missing',
  'v0.97/invalid/out-of-scope-file-paths-using-dot-notation':
    'lists "../../../README.md", which contains a \'..\' segment',
  'v0.97/invalid/out-of-scope-file-paths-using-dot-notation-for-fetch':
    'fetch.txt line 1 lists "../../../README.md"',
  'v0.97/invalid/same-filename-listed-twice-with-different-hashes':
    'data/README more than once, with different checksums',
  'v0.97/linux-only/out-of-scope-file-paths-using-absolute-path':
    'lists "/tmp/foo", which is an absolute path',
  'v0.97/linux-only/out-of-scope-file-paths-using-absolute-path-for-fetch':
    'lists "/tmp/test.txt", which is an absolute path',
  'v0.97/linux-only/out-of-scope-file-paths-using-shortcut': 'lists "~/foo", which is outside data/',
  'v0.97/linux-only/out-of-scope-file-paths-using-shortcut-for-fetch':
    'lists "~/test.txt", which is outside data/',
  'v0.97/linux-only/out-of-scope-file-paths-using-shortcut-username':
    'lists "~root/foo", which is outside data/',
  'v0.97/linux-only/out-of-scope-file-paths-using-shortcut-username-for-fetch':
    'lists "~root/foo", which is outside data/',
  // Invalid on Windows for the suite; a zip uploaded from anywhere may hold them, so they fail here too.
  'v0.97/windows-only/out-of-scope-file-paths-using-absolute-path': 'which contains a backslash',
  'v0.97/windows-only/out-of-scope-file-paths-using-absolute-path-for-fetch': 'which contains a backslash',
  'v0.97/windows-only/out-of-scope-file-paths-using-shortcut': 'which contains a backslash',
  'v0.97/windows-only/out-of-scope-file-paths-using-shortcut-for-fetch': 'which contains a backslash',
  'v0.97/windows-only/out-of-scope-file-paths-using-unc': 'which contains a backslash',
  'v0.97/windows-only/out-of-scope-file-paths-using-unc-for-fetch': 'which contains a backslash',
  'v1.0/invalid/bagit-with-invalid-whitespace':
    'bagit.txt line 1 is not "BagIt-Version: M.N": "BagIt-Version : 1.0"',
  'v1.0/invalid/notAllManifestsListAllFiles':
    'data/missingFromManifest.txt is in the bag but not listed in any payload manifest',
  // its bagit.txt also has a space after the version; what the suite means it for is reported too
  'v1.0/invalid/same-filename-listed-twice-with-different-hashes':
    'data/README more than once, with different checksums',
  'v1.0/invalid/same-filename-listed-twice-with-the-same-hash':
    'manifest-sha256.txt line 2 lists data/README again: a manifest lists each file once',
};

/** [version/category/bag, directory] for every bag of the suite (the category folders also hold Makefiles). */
function suiteBags(): [string, string][] {
  return [SUITE, SUITE_V1].flatMap(bagsUnder);
}

function bagsUnder(suite: string): [string, string][] {
  const subdirectories = (dir: string) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  return subdirectories(suite).flatMap((version) =>
    subdirectories(join(suite, version)).flatMap((category) =>
      subdirectories(join(suite, version, category)).map((bag): [string, string] => [
        `${version}/${category}/${bag}`,
        join(suite, version, category, bag),
      ]),
    ),
  );
}

describe('validateBag on the Library of Congress BagIt conformance suite', () => {
  it('finds the suite', () => {
    expect(suiteBags().length).toBeGreaterThan(45);
    expect(suiteBags().map(([name]) => name)).toContain('v1.0/valid/basicBag');
  });

  it.each(suiteBags())('%s', async (name, dir) => {
    const category = name.split('/')[1];
    const result = await validateBag(directoryBagSource(dir));
    if (category === 'valid' || category === 'warning') {
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.payload.length).toBeGreaterThan(0);
      if (category === 'warning') expect(result.warnings).not.toEqual([]);
    } else {
      expect(result.valid).toBe(false);
      expect(result.errors.join('\n')).toContain(INVALID_BECAUSE[name]);
    }
  });

  it('reads tag files in UTF-16 and ISO-8859-1, and bag-info.txt with repeated labels', async () => {
    const utf16 = await validateBag(directoryBagSource(join(SUITE, 'v0.97/valid/UTF-16-encoded-tag-files')));
    expect(utf16.info).toContainEqual({ label: 'Contact-Name', value: 'Chris Adams' });
    const duplicates = await validateBag(
      directoryBagSource(join(SUITE, 'v0.97/valid/duplicate-metadata-entries')),
    );
    expect(duplicates.info.filter(({ label }) => label === 'Bagging-Date').map(({ value }) => value)).toEqual(
      ['2016-02-26', '2016-03-10'],
    );
    const separators = await validateBag(
      directoryBagSource(join(SUITE, 'v0.97/valid/uncommon-metadata-separators')),
    );
    expect(separators.info.filter(({ label }) => label === 'Test-Tag').map(({ value }) => value)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
  });

  it('reports a holey bag’s fetch.txt', async () => {
    const holey = await validateBag(directoryBagSource(join(SUITE, 'v0.97/valid/holey-bag')));
    expect(holey.fetchItems).toContainEqual({
      url: 'http://localhost:8989/bags/v0_96/holey-bag/data/test%201.txt',
      length: null,
      path: 'data/test 1.txt',
    });
  });
});

describe('bag zips', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bagit-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Opens a zip as an upload is opened: its single top-level directory validated as a bag. */
  async function validateZip(zip: Buffer | string): Promise<BagValidation> {
    let path = zip as string;
    if (Buffer.isBuffer(zip)) {
      path = join(dir, 'upload.zip');
      await writeFile(path, zip);
    }
    const archive = await openZip(path);
    try {
      return await validateBag(zipBagSource(archive, findBagRoot(archive.entries)));
    } finally {
      archive.close();
    }
  }

  describe('made by bagit-python (shared fixtures)', () => {
    it.each([
      ['ProjectBagItToUpload.zip', ['NewProject/funnyfunnyimages/Screen Shot 2019-07-15 at 3.26.49 PM.png']],
      ['ProjectSingleFileToUpload.zip', ['NewProject/Screen Shot 2019-07-15 at 3.51.13 PM.png']],
      [
        'GoodBagItsha512.zip',
        [
          'Food/Screen Shot 2019-03-06 at 12.13.37 PM.png',
          'c64ca62b-20a6-438f-af89-19d88d66e75a-dd4fc773-e07b-4a5b-84b8-054875b0a3fe-v1.png',
        ],
      ],
      [
        'BadProjectMultipleFolders.zip',
        [
          'Folder1/Screen Shot 2019-07-15 at 3.16.21 PM.png',
          'Folder2/Screen Shot 2019-07-15 at 3.51.13 PM.png',
        ],
      ],
    ])('%s is a valid bag', async (name, payload) => {
      const result = await validateZip(join(FIXTURES, 'bags', name));
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.version).toBe('0.97');
      expect(result.payload.map(({ path }) => path)).toEqual(payload);
      for (const file of result.payload) expect(Object.keys(file.hashes).sort()).toEqual(result.algorithms);
    });

    it('hands each verified payload file to a sink, in path order, instead of collecting them', async () => {
      const zipFile = join(FIXTURES, 'bags', 'GoodBagItsha512.zip');
      const collected = await validateZip(zipFile);
      const archive = await openZip(zipFile);
      const sunk: PayloadFile[] = [];
      try {
        const source = zipBagSource(archive, findBagRoot(archive.entries));
        const result = await validateBag(source, async (file) => void sunk.push(file));
        expect(result.valid).toBe(true);
        expect(result.payload).toEqual([]);
      } finally {
        archive.close();
      }
      expect(sunk).toEqual(collected.payload);
      expect(sunk.map(({ path }) => path)).toEqual([...sunk.map(({ path }) => path)].sort());
    });

    it('BadBagItManifest.zip fails on the checksum its manifest got wrong', async () => {
      const result = await validateZip(join(FIXTURES, 'bags', 'BadBagItManifest.zip'));
      expect(result.valid).toBe(false);
      expect(result.errors).toContain(
        'Checksum of data/funnyfunnyimages/Screen Shot 2019-07-15 at 3.26.49 PM.png in manifest-sha256.txt does not match: ' +
          'expected 6d33275234b28d77348e4e1049f58b95a485a7a441684a9eb9175d01c7f141eb, ' +
          'got 6d33275234b28d77348e4e1049f58b95a485a7a441684a9eb9175d01c7f141ea',
      );
    });

    it('bagless_zip.zip has no bag directory', async () => {
      await expect(validateZip(join(FIXTURES, 'bags', 'bagless_zip.zip'))).rejects.toThrow(
        new ServiceError(
          400,
          'The zip must hold exactly one top-level directory, the bag, and nothing beside it, ' +
            'but it has files at its top level: screenshot.png.',
        ),
      );
    });
  });

  describe('findBagRoot', () => {
    const file = (path: string) => ({ path, isDirectory: false });
    const directory = (path: string) => ({ path, isDirectory: true });

    it('gives the single top-level directory, ignoring what macOS adds', () => {
      expect(
        findBagRoot([
          directory('__MACOSX'),
          file('__MACOSX/bag/._bagit.txt'),
          file('.DS_Store'),
          file('bag/bagit.txt'),
          file('bag/data/a.txt'),
        ]),
      ).toBe('bag/');
      expect(findBagRoot([directory('bag')])).toBe('bag/');
    });

    it.each([
      [[file('a.txt'), file('bag/bagit.txt')], 'but it has files at its top level: a.txt.'],
      [[file('one/bagit.txt'), file('two/bagit.txt')], 'but it has 2 top-level directories: one/, two/.'],
      [[file('__MACOSX/._x'), file('.DS_Store')], 'but it has no directory.'],
    ])('refuses %j', (entries, problem) => {
      expect(() => findBagRoot(entries)).toThrow(
        `The zip must hold exactly one top-level directory, the bag, and nothing beside it, ${problem}`,
      );
    });
  });

  describe('made by the test helper, then damaged', () => {
    const files = { 'a.txt': 'alpha', 'sub/b.txt': 'bravo' };

    it('validates a complete bag and gives every payload file with its hashes', async () => {
      const result = await validateZip(await makeBagZip({ files, algorithms: ['md5', 'sha256'] }));
      expect(result).toMatchObject({ valid: true, errors: [], warnings: [], version: '1.0' });
      expect(result.algorithms).toEqual(['md5', 'sha256']);
      expect(result.payload).toEqual([
        { path: 'a.txt', size: 5, hashes: { md5: md5('alpha'), sha256: sha256('alpha') } },
        { path: 'sub/b.txt', size: 5, hashes: { md5: md5('bravo'), sha256: sha256('bravo') } },
      ]);
    });

    it('reports a wrong checksum', async () => {
      const zip = await makeBagZip({
        files,
        mutate: (bag) =>
          editText(bag, 'manifest-sha256.txt', (text) => text.replace(sha256('alpha'), sha256('other'))),
      });
      expect((await validateZip(zip)).errors).toEqual([
        `Checksum of data/a.txt in manifest-sha256.txt does not match: expected ${sha256('other')}, got ${sha256('alpha')}`,
      ]);
    });

    it('reports a listed file that is missing, and the Payload-Oxum that no longer adds up', async () => {
      const zip = await makeBagZip({ files, mutate: (bag) => bag.delete('data/sub/b.txt') });
      expect((await validateZip(zip)).errors).toEqual([
        'data/sub/b.txt is listed in manifest-sha256.txt but missing from the bag',
        'Payload-Oxum validation failed: expected 2 files and 10 bytes, found 1 files and 5 bytes',
      ]);
    });

    it('reports a payload file no manifest lists', async () => {
      const zip = await makeBagZip({ files, mutate: (bag) => bag.set('data/extra.txt', Buffer.from('')) });
      expect((await validateZip(zip)).errors).toEqual([
        'data/extra.txt is in the bag but not listed in any payload manifest',
        'Payload-Oxum validation failed: expected 2 files and 10 bytes, found 3 files and 10 bytes',
      ]);
    });

    it('reports a file missing from one of the payload manifests', async () => {
      const zip = await makeBagZip({
        files,
        algorithms: ['sha256', 'sha512'],
        mutate: (bag) => editText(bag, 'manifest-sha512.txt', (text) => text.replace(/^.*a\.txt\n/m, '')),
      });
      expect((await validateZip(zip)).errors).toEqual([
        'data/a.txt is listed in manifest-sha256.txt but not in manifest-sha512.txt: ' +
          'every payload file must be listed in every payload manifest',
      ]);
    });

    it('refuses a bag without bagit.txt', async () => {
      const result = await validateZip(await makeBagZip({ files, mutate: (bag) => bag.delete('bagit.txt') }));
      expect(result).toMatchObject({ valid: false, version: null, payload: [] });
      expect(result.errors).toEqual([
        'bagit.txt is missing: a bag has one at its root, declaring its BagIt-Version and encoding',
      ]);
    });

    it('refuses a manifest path that leaves the bag', async () => {
      const zip = await makeBagZip({
        files,
        mutate: (bag) =>
          editText(bag, 'manifest-sha256.txt', (text) => `${text}${sha256('x')}  data/../../x\n`),
      });
      expect((await validateZip(zip)).errors).toEqual([
        `manifest-sha256.txt line 3 lists "data/../../x", which contains a '..' segment, which would reach outside its folder`,
      ]);
    });

    it('reads percent-encoded names (%25, %0A, %0D) and literal ones', async () => {
      const names = {
        '100%.txt': 'percent',
        'two\nlines.txt': 'newline',
        'carriage\r.txt': 'return',
        '%7E.txt': 'tilde',
      };
      const result = await validateZip(await makeBagZip({ files: names }));
      expect(result.errors).toEqual([]);
      expect(result.payload.map(({ path }) => path).sort()).toEqual(Object.keys(names).sort());
    });

    it('encodes manifest paths so that they decode back, leaving a "%" as it is where it cannot be misread', () => {
      for (const name of ['50% done.txt', '100%25.txt', 'a%0Ab%0d', 'two\nlines\r.txt'])
        expect(decodeManifestPath(encodeManifestPath(name))).toBe(name);
      expect(encodeManifestPath('50% done.txt')).toBe('50% done.txt');
      expect(encodeManifestPath('100%25.txt')).toBe('100%2525.txt');
      expect(encodeManifestPath('two\nlines\r.txt')).toBe('two%0Alines%0D.txt');
    });

    it('accepts a holey bag, whose missing files fetch.txt lists', async () => {
      const zip = await makeBagZip({
        files,
        mutate: (bag) => {
          bag.delete('data/sub/b.txt');
          bag.set('fetch.txt', Buffer.from('https://example.org/b.txt 5 data/sub/b.txt\n'));
        },
      });
      const result = await validateZip(zip);
      expect(result.errors).toEqual([]);
      expect(result.fetchItems).toEqual([
        { url: 'https://example.org/b.txt', length: 5, path: 'data/sub/b.txt' },
      ]);
      expect(result.warnings[0]).toBe(
        'data/sub/b.txt is listed in fetch.txt and not in the bag yet, so it was not verified',
      );
      expect(result.payload.map(({ path }) => path)).toEqual(['a.txt']);
    });

    it('ignores, with a warning, a .DS_Store that no manifest lists', async () => {
      const zip = await makeBagZip({
        files,
        mutate: (bag) => bag.set('data/sub/.DS_Store', Buffer.from('finder')),
      });
      const result = await validateZip(zip);
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([
        'data/sub/.DS_Store is operating-system clutter, listed in no manifest; ignored',
      ]);
      expect(result.payload.map(({ path }) => path)).toEqual(['a.txt', 'sub/b.txt']);
    });

    it('finds the bag beside what macOS adds to a zip', async () => {
      const zip = await makeBagZip({
        files,
        root: 'my bag',
        extraEntries: [
          { name: '__MACOSX/my bag/._bagit.txt', content: 'resource fork' },
          { name: '.DS_Store' },
        ],
      });
      expect(await validateZip(zip)).toMatchObject({ valid: true, errors: [] });
    });
  });

  describe('tag files parsed as RFC 8493 section 2 says', () => {
    const files = { 'a.txt': 'alpha', 'sub/b.txt': 'bravo' };
    const VERSION = 'BagIt-Version: 1.0';
    const ENCODING = 'Tag-File-Character-Encoding: UTF-8';
    const FORM = 'it must be exactly "BagIt-Version: M.N" and "Tag-File-Character-Encoding: ENCODING"';
    const line1 = (line: string) => `bagit.txt line 1 is not "BagIt-Version: M.N": ${JSON.stringify(line)}`;
    const line2 = (line: string) =>
      `bagit.txt line 2 is not "Tag-File-Character-Encoding: ENCODING": ${JSON.stringify(line)}`;
    const withTagFile = (path: string, content: string) =>
      makeBagZip({ files, mutate: (bag) => bag.set(path, Buffer.from(content)) });

    it.each([
      ['a space before the colon', `BagIt-Version : 1.0\n${ENCODING}\n`, line1('BagIt-Version : 1.0')],
      ['no space after the colon', `BagIt-Version:1.0\n${ENCODING}\n`, line1('BagIt-Version:1.0')],
      ['two spaces after the colon', `BagIt-Version:  1.0\n${ENCODING}\n`, line1('BagIt-Version:  1.0')],
      ['a tab after the colon', `BagIt-Version:\t1.0\n${ENCODING}\n`, line1('BagIt-Version:\t1.0')],
      ['a space after the version', `${VERSION} \n${ENCODING}\n`, line1(`${VERSION} `)],
      ['a label in other letter case', `bagit-version: 1.0\n${ENCODING}\n`, line1('bagit-version: 1.0')],
      ['a version without its minor number', `BagIt-Version: 1\n${ENCODING}\n`, line1('BagIt-Version: 1')],
      ['the two lines swapped', `${ENCODING}\n${VERSION}\n`, line1(ENCODING)],
      ['a space after the encoding', `${VERSION}\n${ENCODING} \n`, line2(`${ENCODING} `)],
      [
        'an encoding line without its colon',
        `${VERSION}\nTag-File-Character-Encoding UTF-8\n`,
        line2('Tag-File-Character-Encoding UTF-8'),
      ],
      [
        'a third line',
        `${VERSION}\n${ENCODING}\nContact-Name: Ann\n`,
        'bagit.txt line 3 is one line too many: "Contact-Name: Ann"',
      ],
      [
        'an empty line at the end',
        `${VERSION}\n${ENCODING}\n\n`,
        'bagit.txt line 3 is one line too many: ""',
      ],
      ['an empty line between the two', `${VERSION}\n\n${ENCODING}\n`, line2('')],
      ['only the version line', `${VERSION}\n`, `bagit.txt has no line 2: ${FORM}`],
      ['nothing', '', `bagit.txt has no line 1: ${FORM}`],
    ])('refuses a bagit.txt with %s, naming the line', async (_case, content, error) => {
      const result = await validateZip(await withTagFile('bagit.txt', content));
      expect(result.valid).toBe(false);
      expect(result.errors).toContain(error);
    });

    it.each([
      ['CRLF line endings', `${VERSION}\r\n${ENCODING}\r\n`],
      ['CR line endings', `${VERSION}\r${ENCODING}\r`],
      ['no line ending after the last line', `${VERSION}\n${ENCODING}`],
    ])('accepts a bagit.txt with %s', async (_case, content) => {
      const result = await validateZip(await withTagFile('bagit.txt', content));
      expect(result.errors).toEqual([]);
      expect(result.version).toBe('1.0');
    });

    const a = sha256('alpha');
    const b = sha256('bravo');
    const manifestError = (line: number, text: string, digits = 64) =>
      `manifest-sha256.txt line ${line} is not "<checksum> <path>" with a checksum of ${digits} hex digits: ` +
      JSON.stringify(text);

    it.each([
      ['a checksum one digit short', `${b.slice(1)}  data/sub/b.txt`],
      ['a checksum one digit too long', `${b}0  data/sub/b.txt`],
      ['a checksum that is not hex', `${b.slice(0, -1)}g  data/sub/b.txt`],
      ['an md5 checksum in a sha256 manifest', `${md5('bravo')}  data/sub/b.txt`],
      ['no whitespace after the checksum', `${b}data/sub/b.txt`],
      ['whitespace before the checksum', ` ${b}  data/sub/b.txt`],
      ['a checksum and no path', `${b}  `],
      ['a path and no checksum', 'data/sub/b.txt'],
      ['an empty line', ''],
    ])('refuses a manifest line with %s, naming the file and line', async (_case, line) => {
      const manifest = `${a}  data/a.txt\n${line}\n${b}  data/sub/b.txt\n`;
      const result = await validateZip(await withTagFile('manifest-sha256.txt', manifest));
      expect(result.valid).toBe(false);
      expect(result.errors).toContain(manifestError(2, line));
    });

    it.each([
      ['upper-case hex', `${a.toUpperCase()}  data/a.txt\n${b}  data/sub/b.txt\n`],
      ['a tab between checksum and path', `${a}\tdata/a.txt\n${b}\tdata/sub/b.txt\n`],
      ['several blanks between checksum and path', `${a} \t  data/a.txt\n${b} data/sub/b.txt`],
    ])('accepts manifest lines with %s', async (_case, manifest) => {
      const result = await validateZip(await withTagFile('manifest-sha256.txt', manifest));
      expect(result.errors).toEqual([]);
    });

    it('refuses a file a BagIt 1.0 manifest lists twice, even with the same checksum', async () => {
      const manifest = `${a}  data/a.txt\n${b}  data/sub/b.txt\n${a}  data/a.txt\n`;
      const result = await validateZip(await withTagFile('manifest-sha256.txt', manifest));
      expect(result.errors).toEqual([
        'manifest-sha256.txt line 3 lists data/a.txt again: a manifest lists each file once',
      ]);
    });

    it('refuses a malformed tag manifest line, naming it', async () => {
      const bag = join(dir, 'basicBag');
      await cp(join(SUITE_V1, 'v1.0', 'valid', 'basicBag'), bag, { recursive: true });
      const tagManifest = join(bag, 'tagmanifest-sha512.txt');
      const [first, ...rest] = (await readFile(tagManifest, 'utf8')).split('\n');
      const broken = first.replace(/^(\w+)(\s+)/, '$1:$2');
      await writeFile(tagManifest, [broken, ...rest].join('\n'));
      const result = await validateBag(directoryBagSource(bag));
      expect(result.errors).toContain(
        `tagmanifest-sha512.txt line 1 is not "<checksum> <path>" with a checksum of 128 hex digits: ${JSON.stringify(broken)}`,
      );
    });

    it('refuses a bag-info.txt line that is not "Label: value", naming it', async () => {
      const result = await validateZip(
        await withTagFile('bag-info.txt', 'Bagging-Date: 2024-01-01\nno label here\nPayload-Oxum: 10.2\n'),
      );
      expect(result.errors).toEqual(['bag-info.txt line 2 is not a "Label: value" line: "no label here"']);
    });
  });

  it('refuses a link inside a bag on disk', async () => {
    const bag = join(dir, 'bag');
    await mkdir(join(bag, 'data'), { recursive: true });
    await writeFile(join(bag, 'bagit.txt'), 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n');
    await symlink('/etc/passwd', join(bag, 'data', 'passwd'));
    await expect(validateBag(directoryBagSource(bag))).rejects.toThrow(
      new ServiceError(400, 'data/passwd is a symbolic link; a bag must not contain links.'),
    );
  });
});

describe('BagZipWriter', () => {
  let dir: string;
  let zipPath: string;
  let big: Buffer;
  const returned = new Map<string, Record<string, string>>();
  const texts: Record<string, string> = {
    'docs/read me.txt': 'spaces in the name\n',
    'docs/ünïcødé – naïve.csv': 'a,b\n1,2\n',
    'docs/50% done.md': '# half\n',
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bag-writer-'));
    zipPath = join(dir, 'lab_download_abc.zip');
    big = randomBytes(8 * (1 << 20) + 123);
    await writeFile(join(dir, 'big.bin'), big);
    const writer = new BagZipWriter({
      output: zipPath,
      rootName: 'lab_download_abc/',
      algorithms: ['md5'],
      bagInfo: {
        'Bag-Software-Agent': 'presqt-broker tests',
        'External-Identifier': 'lab:abc',
        'Contact-Name': ['Ada', 'Grace'],
      },
      spillDir: dir,
    });
    returned.set(
      'big.bin',
      await writer.addPayloadFile('big.bin', createReadStream(join(dir, 'big.bin')), big.length),
    );
    for (const [path, content] of Object.entries(texts))
      returned.set(path, await writer.addPayloadFile(path, Readable.from([Buffer.from(content)])));
    await writer.addDirectory('empty folder');
    await writer.addTagFile('PRESQT_FTS_METADATA.json', Readable.from(['{"actions": ', '[]}\n']));
    await writer.finalize();
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a bag that validates, with the hashes addPayloadFile returned', async () => {
    const zip = await openZip(zipPath);
    try {
      const result = await validateBag(zipBagSource(zip, findBagRoot(zip.entries)));
      expect(result).toMatchObject({ valid: true, errors: [], warnings: [], version: '1.0' });
      expect(result.algorithms).toEqual(['md5', 'sha256', 'sha512']);
      expect(result.payload.map(({ path }) => path).sort()).toEqual([...returned.keys()].sort());
      for (const file of result.payload) expect(file.hashes).toEqual(returned.get(file.path));
      expect(returned.get('big.bin')).toEqual({ md5: md5(big), sha256: sha256(big), sha512: sha512(big) });
      expect(result.info.map(({ label, value }) => `${label}: ${value}`)).toEqual([
        expect.stringMatching(/^Bagging-Date: \d{4}-\d{2}-\d{2}$/),
        'Bag-Software-Agent: presqt-broker tests',
        'External-Identifier: lab:abc',
        'Contact-Name: Ada',
        'Contact-Name: Grace',
        `Payload-Oxum: ${big.length + Object.values(texts).reduce((sum, text) => sum + Buffer.byteLength(text), 0)}.${returned.size}`,
      ]);
    } finally {
      zip.close();
    }
  });

  it('stores binary files, deflates text ones, and keeps an empty directory', async () => {
    const zip = await openZip(zipPath);
    const entry = (path: string) =>
      zip.entries.find((candidate) => candidate.path === `lab_download_abc/${path}`);
    expect(entry('data/big.bin')).toMatchObject({ size: big.length, compressedSize: big.length });
    expect(entry('manifest-sha512.txt')?.compressedSize).toBeLessThan(
      entry('manifest-sha512.txt')?.size ?? 0,
    );
    expect(entry('data/empty folder')).toMatchObject({ isDirectory: true });
    const payloadFiles = zip.entries.filter(
      (e) => e.path.startsWith('lab_download_abc/data/') && !e.isDirectory,
    );
    expect(payloadFiles.map((e) => e.path.replace('lab_download_abc/data/', ''))).toEqual([
      ...returned.keys(),
    ]);
    expect(entry('PRESQT_FTS_METADATA.json')).toBeDefined();
    zip.close();
  });

  it('covers the added tag file with the tag manifests', async () => {
    const zip = await openZip(zipPath);
    const tagManifest = await text(await zip.openEntry('lab_download_abc/tagmanifest-sha256.txt'));
    zip.close();
    expect(tagManifest).toContain(`${sha256('{"actions": []}\n')}  PRESQT_FTS_METADATA.json\n`);
    expect(tagManifest).toMatch(/ {2}bagit\.txt\n/);
    expect(tagManifest).toMatch(/ {2}manifest-md5\.txt\n/);
  });

  describe('read by independent tools', () => {
    let extracted: string;

    beforeAll(() => {
      extracted = join(dir, 'extracted');
      // Python's zipfile checks each entry's CRC-32 while extracting.
      execFileSync('python3', [
        '-c',
        'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])',
        zipPath,
        extracted,
      ]);
    });

    it('has manifests that coreutils check (md5sum -c, sha256sum -c, sha512sum -c)', () => {
      const bag = join(extracted, 'lab_download_abc');
      for (const tool of ['md5', 'sha256', 'sha512'])
        for (const manifest of [`manifest-${tool}.txt`, `tagmanifest-${tool}.txt`])
          execFileSync(`${tool}sum`, ['--check', '--quiet', '--strict', manifest], { cwd: bag });
    });

    it('is a complete, valid bag for an independent Python verifier (test/support/verify_bag.py)', () => {
      verifyBagZip(zipPath, 'lab_download_abc');
    });
  });

  it('streams payload manifests spilled to disk, covered by the tag manifests, and removes the spill', async () => {
    const spillDir = await mkdtemp(join(dir, 'spill-'));
    const zipFile = join(dir, 'many.zip');
    const writer = new BagZipWriter({ output: zipFile, rootName: 'many', spillDir });
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const content = `file ${i}\n`;
      await writer.addPayloadFile(`f/${i}\n.txt`, Readable.from([Buffer.from(content)]));
      expected.push(`${sha256(content)}  data/f/${i}%0A.txt\n`);
    }
    expect(readdirSync(spillDir)).toHaveLength(1);
    await writer.finalize();
    expect(readdirSync(spillDir)).toEqual([]);
    const zip = await openZip(zipFile);
    try {
      const manifest = await text(await zip.openEntry('many/manifest-sha256.txt'));
      expect(manifest).toBe(expected.join(''));
      const tagManifest = await text(await zip.openEntry('many/tagmanifest-sha512.txt'));
      const manifest512 = await text(await zip.openEntry('many/manifest-sha512.txt'));
      expect(tagManifest).toContain(`${sha512(manifest512)}  manifest-sha512.txt\n`);
      expect(tagManifest).toContain(`${sha512(manifest)}  manifest-sha256.txt\n`);
      const bagInfo = await text(await zip.openEntry('many/bag-info.txt'));
      const bytes = expected.reduce((sum, _line, i) => sum + `file ${i}\n`.length, 0);
      expect(bagInfo).toContain(`Payload-Oxum: ${bytes}.3000\n`);
    } finally {
      zip.close();
    }
  });

  it('does not run ahead of a stalled output: a file is added once the zip has written it', async () => {
    const output = new PassThrough({ highWaterMark: 1024 });
    const writer = new BagZipWriter({ output, rootName: 'stalled', spillDir: dir });
    const size = 16 * 1024;
    const file = (i: number) => writer.addPayloadFile(`f${i}.bin`, Readable.from([randomBytes(size)]));
    let added = 0;
    let pending = file(0);
    while ((await within(300, pending)) !== WAITING && added < 1000) pending = file(++added);
    // the output's buffer and the file being written; a small file's addition must not resolve while the
    // output is stalled, else every later one would queue up in memory
    expect(added * size).toBeLessThan(8 * 2 ** 20);
    output.resume();
    await pending;
    await writer.finalize();
  });

  it('takes the next file while the digests of earlier ones are still coming, listing them in the order added', async () => {
    const path = join(dir, 'streamed.zip');
    const writer = new BagZipWriter({ output: path, rootName: 'streamed', spillDir: dir });
    const contents = Array.from({ length: 40 }, (_, i) => randomBytes(1000 + i * 997));
    const digests: Promise<Record<string, string>>[] = [];
    for (const [i, content] of contents.entries())
      digests.push((await writer.streamPayloadFile(`f${i}.bin`, Readable.from([content]))).digests);
    expect((await Promise.all(digests)).map(({ sha256 }) => sha256)).toEqual(contents.map(sha256));
    await writer.finalize();
    const zip = await openZip(path);
    try {
      expect((await validateBag(zipBagSource(zip, findBagRoot(zip.entries)))).valid).toBe(true);
      const manifest = await text(await zip.openEntry('streamed/manifest-sha256.txt'));
      expect(
        manifest
          .trim()
          .split('\n')
          .map((line) => line.split('  ')[1]),
      ).toEqual(contents.map((_, i) => `data/f${i}.bin`));
    } finally {
      zip.close();
    }
  });

  it('fails the zip when a streamed file turns out short, and the files after it', async () => {
    const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'short', spillDir: dir });
    const short = await writer.streamPayloadFile('a.bin', Readable.from([Buffer.from('abc')]), 10);
    await expect(short.digests).rejects.toThrow(
      'data/a.bin: the source gave 3 bytes where 10 were announced',
    );
    await expect(writer.addPayloadFile('b.bin', Readable.from([Buffer.from('b')]))).rejects.toThrow(
      'data/a.bin: the source gave 3 bytes',
    );
    await writer.abort();
  });

  it('removes its spilled manifests when aborted', async () => {
    const spillDir = await mkdtemp(join(dir, 'spill-'));
    const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'gone', spillDir });
    await writer.addPayloadFile('a.txt', Readable.from([Buffer.from('a')]));
    await writer.abort();
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('refuses a payload whose source gives fewer bytes than announced', async () => {
    const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'short', spillDir: dir });
    await expect(writer.addPayloadFile('a.bin', Readable.from([Buffer.from('abc')]), 10)).rejects.toThrow(
      'data/a.bin: the source gave 3 bytes where 10 were announced',
    );
    await writer.abort();
  });

  it('refuses unsafe or reserved names', async () => {
    const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'names', spillDir: dir });
    await expect(writer.addDirectory('../up')).rejects.toThrow("contains a '..' segment");
    await expect(writer.addTagFile('manifest-sha256.txt', '')).rejects.toThrow('made by the writer');
    expect(() => new BagZipWriter({ output: new PassThrough(), rootName: 'a/b', spillDir: dir })).toThrow(
      "contains a '/'",
    );
    expect(
      () =>
        new BagZipWriter({ output: new PassThrough(), rootName: 'r', algorithms: ['crc32'], spillDir: dir }),
    ).toThrow('Unsupported manifest algorithms: crc32');
    await writer.abort();
  });

  it('abort() stops a file being written, and removes the zip it made', async () => {
    const path = join(dir, 'aborted.zip');
    const writer = new BagZipWriter({ output: path, rootName: 'aborted', spillDir: dir });
    const endless = new Readable({ read: () => undefined });
    endless.push(randomBytes(1 << 16));
    const adding = writer.addPayloadFile('endless.bin', endless);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.abort();
    await expect(adding).rejects.toThrow();
    await expect(access(path)).rejects.toThrow('ENOENT');
  });

  // A cancelled download's run once hung for ever: abort() discarded the manifests while a file's digest was
  // still coming back from the hashing thread, and that file's manifest line then waited on the closed file.
  it('settles a file being added whenever abort() comes, its digest still to come included', async () => {
    const unsettled: number[] = [];
    for (let trial = 0; trial < 60; trial++) {
      const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'a', spillDir: dir });
      const adding = (async () => {
        for (let i = 0; ; i++) await writer.addPayloadFile(`f${i}.bin`, Readable.from([randomBytes(4096)]));
      })();
      adding.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, trial % 15));
      await writer.abort();
      if (
        (await within(
          2000,
          adding.catch(() => undefined),
        )) === WAITING
      )
        unsettled.push(trial);
    }
    expect(unsettled).toEqual([]);
  });

  it('fails the next file at once after a file whose source failed, instead of queueing it in the zip', async () => {
    const writer = new BagZipWriter({ output: new PassThrough().resume(), rootName: 'b', spillDir: dir });
    const failing = new Readable({ read: () => undefined });
    failing.push(randomBytes(1 << 16));
    const first = writer.addPayloadFile('first.bin', failing);
    setTimeout(() => failing.destroy(new Error('the source broke')), 20);
    await expect(first).rejects.toThrow('the source broke');
    const second = writer.addPayloadFile('second.bin', Readable.from([randomBytes(1 << 16)]));
    const settled = await within(
      2000,
      second.then(
        () => 'added',
        (error: Error) => error.message,
      ),
    );
    expect(settled).toBe('the source broke');
    await writer.abort();
  });

  it('refuses files added after abort() at once instead of waiting on the dead zip, closing their sources', async () => {
    const writer = new BagZipWriter({ output: new PassThrough(), rootName: 'aborted', spillDir: dir });
    await writer.abort();
    const late = createReadStream(join(dir, 'big.bin'));
    await expect(writer.addPayloadFile('late.txt', late)).rejects.toThrow('aborted');
    // a source left open would hold its file descriptor for ever
    expect(late.destroyed).toBe(true);
  });
});

const WAITING = Symbol('still waiting');

/** What `promise` gives, or WAITING when it has not settled within `ms`. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T | typeof WAITING> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<typeof WAITING>((resolve) => (timer = setTimeout(() => resolve(WAITING), ms)));
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}

function md5(content: string | Buffer): string {
  return createHash('md5').update(content).digest('hex');
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function sha512(content: string | Buffer): string {
  return createHash('sha512').update(content).digest('hex');
}
