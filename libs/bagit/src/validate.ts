import { createMultiHasher } from '@app/fixity';
import type { BagEntry, BagSource } from './source';
import {
  SUPPORTED_ALGORITHMS,
  checkBagitTxtForm,
  parseFetch,
  parseManifest,
  parseTagFields,
  tagFileDecoder,
  type FetchItem,
  type ManifestEntry,
  type Problems,
  type TagField,
} from './tag-files';

export interface PayloadFile {
  /** relative to the bag's data/ directory */
  path: string;
  size: number;
  /** computed from the bytes, one hex digest per payload manifest algorithm */
  hashes: Record<string, string>;
}

/**
 * Takes each payload file as soon as its checksums are verified, so that the result need not hold them all
 * (a bag may list 100,000). The bag may still turn out invalid after some files went to the sink.
 */
export type PayloadSink = (file: PayloadFile) => Promise<void>;

export interface BagValidation {
  valid: boolean;
  errors: string[];
  warnings: string[];
  /** bagit.txt's BagIt-Version; null when bagit.txt could not be read */
  version: string | null;
  /** bag-info.txt's fields, in order; a label may repeat */
  info: TagField[];
  /** the algorithms of the payload manifests that were checked */
  algorithms: string[];
  /**
   * the payload files, verified; empty when they went to a sink, or when the bag's layout was already wrong,
   * as checksums are then skipped
   */
  payload: PayloadFile[];
  fetchItems: FetchItem[];
}

interface Manifest {
  fileName: string;
  algorithm: string;
  /** keyed by the NFC form of the path */
  entries: Map<string, ManifestEntry>;
}

/** A checksum that a manifest gives for a file. */
interface Expectation {
  manifest: string;
  algorithm: string;
  checksum: string;
  /** the path as the manifest writes it */
  listedPath: string;
}

/** Files that operating systems and copying tools add and drop at will: their absence loses nothing. */
const CLUTTER = new Set(['.DS_Store', 'Thumbs.db']);

/** How many payload files are hashed at once. */
const HASH_AHEAD = 3;

function isClutter(path: string): boolean {
  return CLUTTER.has(path.slice(path.lastIndexOf('/') + 1));
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const decodeUtf8 = (bytes: Buffer) => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const values = map.get(key);
  if (values) values.push(value);
  else map.set(key, [value]);
}

/** Each present payload file, with the keys (NFC paths) under which the manifests list it. */
type ListedKeys = Map<string, string[]>;

/** What the manifests say the file listed under `keys` must hash to. */
function expectationsOf(keys: string[], manifests: Manifest[]): Expectation[] {
  return keys.flatMap((key) =>
    manifests.flatMap(({ fileName, algorithm, entries }) => {
      const entry = entries.get(key);
      return entry
        ? [{ manifest: fileName, algorithm, checksum: entry.checksum, listedPath: entry.path }]
        : [];
    }),
  );
}

/** The payload files by the folded case of their NFC path: made only when a listed file is not found as is. */
function foldedCaseIndex(payloadFiles: string[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const path of payloadFiles) append(index, path.normalize('NFC').toLowerCase(), path);
  return index;
}

function lazily<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

/**
 * Validates a bag per RFC 8493 and the 0.96/0.97 drafts: bagit.txt, tag file encodings, bag-info.txt,
 * complete and consistent payload manifests, Payload-Oxum, fetch.txt, then every checksum, each file being
 * read once for all algorithms. Problems of the bag are reported in the result; it throws only when the
 * source can't be read (or refuses, with a ServiceError, what it holds, such as a link).
 */
export async function validateBag(source: BagSource, sink?: PayloadSink): Promise<BagValidation> {
  return new BagValidator(source, await source.list(), sink ?? null).run();
}

class BagValidator {
  private readonly problems: Problems = { errors: [], warnings: [] };
  private readonly sizes: Map<string, number>;
  /** every file's actual path, by its NFC form */
  private readonly byNormalizedPath = new Map<string, string>();
  /** bagit.txt's Tag-File-Character-Encoding, and how to decode it */
  private encoding = 'UTF-8';
  private decodeTagFile = decodeUtf8;
  /** BagIt 1.0 forbids listing a file twice in a manifest; 0.97 let it pass with the same checksum */
  private listsEachFileOnce = true;

  constructor(
    private readonly source: BagSource,
    private readonly entries: BagEntry[],
    private readonly sink: PayloadSink | null,
  ) {
    this.sizes = new Map(
      entries.filter((entry) => !entry.isDirectory).map((entry) => [entry.path, entry.size]),
    );
    for (const path of this.sizes.keys()) {
      const other = this.byNormalizedPath.get(path.normalize('NFC'));
      if (other === undefined) this.byNormalizedPath.set(path.normalize('NFC'), path);
      else
        this.error(`${other} and ${path} differ only in Unicode normalization, so they can't be told apart`);
    }
  }

  async run(): Promise<BagValidation> {
    const version = await this.readBagitTxt();
    // Without a usable bagit.txt, the other tag files can't even be decoded.
    const contents =
      version === null
        ? { info: [], algorithms: [], payload: [], fetchItems: [] }
        : await this.readContents();
    const { errors, warnings } = this.problems;
    return { valid: errors.length === 0, errors, warnings, version, ...contents };
  }

  private async readContents(): Promise<
    Pick<BagValidation, 'info' | 'algorithms' | 'payload' | 'fetchItems'>
  > {
    const info = await this.readTagFields('bag-info.txt');
    const fetchItems = this.sizes.has('fetch.txt')
      ? parseFetch(await this.readText('fetch.txt'), this.problems)
      : [];
    const manifests = await this.readManifests('manifest');
    const algorithms = manifests.map((manifest) => manifest.algorithm);
    const expected = this.matchPayload(manifests, fetchItems, info);
    // Checksums only for a bag whose layout is right: an incomplete upload fails without reading gigabytes.
    const payload =
      this.problems.errors.length === 0 ? await this.checkPayload(expected, manifests, this.sink) : [];
    await this.checkTagManifests(await this.readManifests('tagmanifest'));
    return { info, algorithms, payload, fetchItems };
  }

  private error(message: string): void {
    this.problems.errors.push(message);
  }

  private warn(message: string): void {
    this.problems.warnings.push(message);
  }

  /**
   * The BagIt-Version, once bagit.txt is known to be usable; else null. Its form is checked line by line, and
   * its values are also read leniently, so that a bag whose bagit.txt is only malformed gets its other
   * problems reported too.
   */
  private async readBagitTxt(): Promise<string | null> {
    if (!this.sizes.has('bagit.txt')) {
      this.error('bagit.txt is missing: a bag has one at its root, declaring its BagIt-Version and encoding');
      return null;
    }
    const bytes = await this.source.readTagFile('bagit.txt');
    if (bytes.subarray(0, 3).equals(UTF8_BOM))
      this.error('bagit.txt starts with a byte-order mark, which BagIt forbids');
    const text = await this.readText('bagit.txt');
    checkBagitTxtForm(text, this.problems.errors);
    const fields = parseTagFields(text, 'bagit.txt', []);
    const field = (label: string) => fields.find((candidate) => candidate.label === label)?.value;
    const version = field('BagIt-Version');
    const encoding = field('Tag-File-Character-Encoding');
    if (version === undefined || !/^\d+\.\d+$/.test(version) || encoding === undefined) return null;
    const decoder = tagFileDecoder(encoding);
    if (!isSupportedVersion(version))
      this.error(`BagIt-Version ${version} is not supported: bags of versions 0.96 to 1.x are`);
    if (decoder === null) this.error(`Tag-File-Character-Encoding ${encoding} is not supported`);
    if (!isSupportedVersion(version) || decoder === null) return null;
    this.encoding = encoding;
    this.decodeTagFile = decoder;
    this.listsEachFileOnce = Number(version.split('.')[0]) >= 1;
    return version;
  }

  /** A tag file's text in the bag's encoding; '' (with an error) when its bytes are not in that encoding. */
  private async readText(fileName: string): Promise<string> {
    const bytes = await this.source.readTagFile(fileName);
    // bagit.txt itself is always UTF-8 (its byte-order mark is checked on its own)
    if (fileName === 'bagit.txt') return this.decodeOrReport(fileName, bytes, decodeUtf8, 'UTF-8');
    if (/^utf-?8$/i.test(this.encoding) && bytes.subarray(0, 3).equals(UTF8_BOM))
      this.warn(`${fileName} starts with a byte-order mark, which BagIt advises against`);
    return this.decodeOrReport(fileName, bytes, this.decodeTagFile, this.encoding);
  }

  private decodeOrReport(
    fileName: string,
    bytes: Buffer,
    decode: (bytes: Buffer) => string,
    encoding: string,
  ): string {
    try {
      return decode(bytes);
    } catch {
      this.error(`${fileName} is not valid ${encoding}`);
      return '';
    }
  }

  private async readTagFields(fileName: string): Promise<TagField[]> {
    if (!this.sizes.has(fileName)) return [];
    return parseTagFields(await this.readText(fileName), fileName, this.problems.errors);
  }

  private async readManifests(kind: 'manifest' | 'tagmanifest'): Promise<Manifest[]> {
    const manifests: Manifest[] = [];
    const pattern = new RegExp(`^${kind}-(\\w+)\\.txt$`);
    for (const fileName of [...this.sizes.keys()].sort()) {
      const algorithm = pattern.exec(fileName)?.[1].toLowerCase();
      if (algorithm === undefined) continue;
      if (!SUPPORTED_ALGORITHMS.includes(algorithm)) {
        this.warn(`${fileName} uses ${algorithm}, which this service can't compute, so it was not checked`);
        continue;
      }
      const text = await this.readText(fileName);
      manifests.push({
        fileName,
        algorithm,
        entries: parseManifest(
          text,
          { fileName, algorithm, payload: kind === 'manifest', listsEachFileOnce: this.listsEachFileOnce },
          this.problems,
        ),
      });
    }
    if (kind === 'manifest' && manifests.length === 0)
      this.error(
        `The bag has no payload manifest: manifest-<algorithm>.txt for one of ${SUPPORTED_ALGORITHMS.join(', ')}`,
      );
    return manifests;
  }

  /**
   * Pairs the payload files with the manifests' entries, reporting files missing or unlisted, and checks
   * Payload-Oxum. Returns what each present file's checksums must be.
   */
  private matchPayload(manifests: Manifest[], fetchItems: FetchItem[], info: TagField[]): ListedKeys {
    const payloadFiles = this.payloadFiles();
    const toFetch = new Set(fetchItems.map((item) => item.path.normalize('NFC')));
    const { expected, absent } = this.locateListed(manifests, payloadFiles, toFetch);
    const { files, bytes } = this.countPayload(payloadFiles, expected, manifests);
    this.checkOxum(info, files, bytes, absent.length);
    return expected;
  }

  /** The payload's files, sorted; a bag without a data/ directory is an error. */
  private payloadFiles(): string[] {
    const payloadFiles = [...this.sizes.keys()].filter((path) => path.startsWith('data/')).sort();
    if (
      payloadFiles.length === 0 &&
      !this.entries.some((entry) => entry.path === 'data' && entry.isDirectory)
    )
      this.error('The bag has no data/ directory, which holds its payload (and may be empty)');
    return payloadFiles;
  }

  /**
   * The file each manifest entry names (allowing a difference of letter case alone), with the checksums it
   * must have; entries of files not in the bag are errors, unless fetch.txt names them or they are clutter.
   */
  private locateListed(
    manifests: Manifest[],
    payloadFiles: string[],
    toFetch: Set<string>,
  ): { expected: ListedKeys; absent: string[] } {
    const byFoldedCase = lazily(() => foldedCaseIndex(payloadFiles));
    const expected: ListedKeys = new Map();
    const absent: string[] = [];
    manifests.forEach(({ entries }, index) => {
      for (const [key, { path }] of entries) {
        // each listed file once, where the first manifest listing it lists it
        if (manifests.slice(0, index).some((earlier) => earlier.entries.has(key))) continue;
        const listedIn = manifests
          .filter((manifest) => manifest.entries.has(key))
          .map((manifest) => manifest.fileName)
          .join(' and ');
        const lacking = manifests.filter((manifest) => !manifest.entries.has(key));
        if (lacking.length > 0)
          this.error(
            `${path} is listed in ${listedIn} but not in ${lacking.map((manifest) => manifest.fileName).join(' and ')}: ` +
              'every payload file must be listed in every payload manifest',
          );
        const actual =
          this.byNormalizedPath.get(key) ??
          this.sameButForCase(key, byFoldedCase, `${path} is listed in ${listedIn}`);
        if (actual !== undefined) append(expected, actual, key);
        else if (toFetch.has(key)) {
          absent.push(path);
          this.warn(`${path} is listed in fetch.txt and not in the bag yet, so it was not verified`);
        } else if (isClutter(path)) {
          absent.push(path);
          this.warn(
            `${path} is listed in ${listedIn} but missing; ignored, as operating-system clutter that copies often drop`,
          );
        } else {
          this.error(`${path} is listed in ${listedIn} but missing from the bag`);
        }
      }
    });
    return { expected, absent };
  }

  /** The files and bytes of the payload, for Payload-Oxum; a file no manifest lists is an error. */
  private countPayload(
    payloadFiles: string[],
    expected: ListedKeys,
    manifests: Manifest[],
  ): { files: number; bytes: number } {
    let files = 0;
    let bytes = 0;
    for (const path of payloadFiles) {
      const listed = expected.has(path);
      if (isClutter(path)) {
        this.warn(
          `${path} is operating-system clutter${listed ? ' in the payload' : ', listed in no manifest; ignored'}`,
        );
        if (!listed) continue; // not part of the bag, nor of its Payload-Oxum
      } else if (!listed && manifests.length > 0) {
        this.error(`${path} is in the bag but not listed in any payload manifest`);
      }
      files += 1;
      bytes += this.sizes.get(path) ?? 0;
    }
    return { files, bytes };
  }

  /** The one payload file whose path differs from `key` only in letter case, as on a case-insensitive disk. */
  private sameButForCase(
    key: string,
    byFoldedCase: () => Map<string, string[]>,
    listed: string,
  ): string | undefined {
    const candidates = byFoldedCase().get(key.toLowerCase()) ?? [];
    if (candidates.length !== 1) return undefined;
    this.warn(
      `${listed}, but the bag has ${candidates[0]}, which differs only in letter case (the bag was probably made ` +
        'on a case-insensitive file system); that file was checked in its place',
    );
    return candidates[0];
  }

  private checkOxum(info: TagField[], files: number, bytes: number, absentFiles: number): void {
    const oxums = info.filter((field) => field.label.toLowerCase() === 'payload-oxum');
    if (oxums.length === 0) return;
    if (oxums.length > 1) this.warn('bag-info.txt has several Payload-Oxum fields; the first was checked');
    const match = /^(\d+)\.(\d+)$/.exec(oxums[0].value);
    if (!match) {
      this.error(`Payload-Oxum "${oxums[0].value}" is not <octet count>.<file count>`);
      return;
    }
    const [expectedBytes, expectedFiles] = [Number(match[1]), Number(match[2])];
    if (expectedBytes === bytes && expectedFiles === files) return;
    const failure =
      `Payload-Oxum validation failed: expected ${expectedFiles} files and ${expectedBytes} bytes, ` +
      `found ${files} files and ${bytes} bytes`;
    if (absentFiles > 0) this.warn(`${failure}, as ${absentFiles} listed files are absent (see above)`);
    else this.error(failure);
  }

  /**
   * Reads and checks every listed payload file, in path order, and hands each to `sink` once checked (or
   * collects them when there is no sink). A few files are hashed at once (HASH_AHEAD), so that the hashing
   * threads (HASH_THREADS) are kept busy while one file's result is handled.
   */
  private async checkPayload(
    expected: ListedKeys,
    manifests: Manifest[],
    sink: PayloadSink | null,
  ): Promise<PayloadFile[]> {
    const collected: PayloadFile[] = [];
    const algorithms = manifests.map((manifest) => manifest.algorithm);
    const paths = [...expected.keys()].sort();
    const hashing: Promise<Record<string, string>>[] = [];
    let next = 0;
    for (const path of paths) {
      for (; hashing.length < HASH_AHEAD && next < paths.length; next++) {
        const hashes = this.hash(paths[next], algorithms);
        // awaited in its turn below; a failure before then must not count as unhandled
        hashes.catch(() => undefined);
        hashing.push(hashes);
      }
      const hashes = await hashing.shift()!;
      this.compare(hashes, expectationsOf(expected.get(path) ?? [], manifests));
      const file = { path: path.slice('data/'.length), size: this.sizes.get(path) ?? 0, hashes };
      if (sink) await sink(file);
      else collected.push(file);
    }
    return collected;
  }

  private async checkTagManifests(manifests: Manifest[]): Promise<void> {
    const expected = new Map<string, Expectation[]>();
    for (const { fileName, algorithm, entries } of manifests)
      for (const [key, { path, checksum }] of entries) {
        const actual = this.byNormalizedPath.get(key);
        if (actual === undefined) this.error(`${path} is listed in ${fileName} but missing from the bag`);
        else append(expected, actual, { manifest: fileName, algorithm, checksum, listedPath: path });
      }
    for (const [path, expectations] of expected)
      this.compare(await this.hash(path, [...new Set(expectations.map((e) => e.algorithm))]), expectations);
  }

  private compare(hashes: Record<string, string>, expectations: Expectation[]): void {
    for (const { manifest, algorithm, checksum, listedPath } of expectations)
      if (hashes[algorithm] !== checksum)
        this.error(
          `Checksum of ${listedPath} in ${manifest} does not match: expected ${checksum}, got ${hashes[algorithm]}`,
        );
  }

  /** Reads the file once, for all algorithms at once: in place on a hashing thread when the source can. */
  private async hash(path: string, algorithms: string[]): Promise<Record<string, string>> {
    const inPlace = await this.source.hashInPlace?.(path, algorithms);
    if (inPlace) return inPlace;
    const hasher = createMultiHasher(algorithms);
    for await (const chunk of await this.source.open(path)) hasher.update(chunk as Buffer);
    return hasher.digest();
  }
}

function isSupportedVersion(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major === 1 || (major === 0 && minor >= 96);
}
