import { unsafePathReason } from '@app/archive';
import {
  createMultiHasher,
  createStreamHasher,
  type CopiedFile,
  type EntryTarget,
  type StreamHasher,
} from '@app/fixity';
import { LinesWriter } from '@app/common';
import { createReadStream, mkdtempSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { SUPPORTED_ALGORITHMS, encodeManifestPath } from './tag-files';
import { ZipWriter } from './zip-writer';

/** The Bag-Software-Agent of the bags this service makes. */
export const SOFTWARE_AGENT = 'presqt-broker (PresQT API v1)';

export interface BagZipWriterOptions {
  /** where the zip goes: a stream, or a file path (which abort() removes) */
  output: Writable | string;
  /** the bag's folder in the zip, e.g. `lab_download_abc` */
  rootName: string;
  /** payload algorithms besides sha256 and sha512, which every bag has (e.g. the md5 a target supplies) */
  algorithms?: readonly string[];
  /**
   * bag-info.txt fields in order, e.g. Bag-Software-Agent and External-Identifier. Bagging-Date defaults to
   * today; Payload-Oxum is computed.
   */
  bagInfo?: Record<string, string | readonly string[]>;
  /**
   * A directory where the payload manifests and the zip's central directory wait on disk until finalize() (in
   * a folder of their own, removed by finalize() and abort()), so that memory does not grow with the number of
   * files.
   */
  spillDir: string;
}

/** Extensions of text formats, which deflate well; everything else (images, archives, data) is stored. */
const TEXT_EXTENSIONS = new Set(
  'txt csv tsv json jsonld xml md markdown rst html htm css js ts yaml yml toml ini cfg conf log py r rmd ipynb tex bib sql sh c h cpp java rdf ttl nt svg geojson'.split(
    ' ',
  ),
);

function looksLikeText(path: string): boolean {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') && TEXT_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

/** Files the writer makes itself, which addTagFile may not replace. */
const RESERVED_TAG_FILE = /^(bagit\.txt|bag-info\.txt|fetch\.txt|(tag)?manifest-.*\.txt)$/;

function checkedRelativePath(path: string, what: string): string {
  const unsafe = unsafePathReason(path);
  if (unsafe) throw new Error(`The ${what} ${JSON.stringify(path)} ${unsafe}`);
  return path;
}

interface ManifestLine {
  path: string;
  hashes: Record<string, string>;
}

/** Copies a local file into a zip entry's place: RemoteFile.copyInto, given an EntryTarget. */
export type CopyIntoEntry = (target: EntryTarget, algorithms: readonly string[]) => Promise<CopiedFile>;

/**
 * Writes one BagIt 1.0 bag as a zip (ZipWriter; ZIP64 when sizes need it): payload files are hashed while they
 * stream into the zip, or copied into it on a hashing thread (copyPayloadFile), so memory stays bounded
 * whatever their sizes, and finalize() adds bagit.txt, bag-info.txt and the payload and tag manifests. Add
 * files one at a time, awaiting each (streamPayloadFile: awaiting its bytes into the zip, copyPayloadFile: its
 * place in the zip; its digests may still be on their way when the next file starts).
 */
export class BagZipWriter {
  /** the payload (and tag) manifest algorithms */
  readonly algorithms: string[];
  private readonly root: string;
  private readonly bagInfo: [string, string][];
  private readonly zip: ZipWriter;
  private readonly ownedPath: string | null;
  private readonly manifests: SpilledManifests;
  private readonly tagFiles: ManifestLine[] = [];
  private readonly names = new Set<string>();
  private payloadFiles = 0;
  private payloadBytes = 0;
  /** the file streaming in, to fail it when the zip fails */
  private current: Readable | null = null;
  /** why the zip can no longer be written (aborted, or its output failed); later additions fail with it */
  private failure: Error | null = null;
  /** settles once every payload file added so far is in the manifests (or failed), in the order added */
  private recorded: Promise<unknown> = Promise.resolve();

  constructor(options: BagZipWriterOptions) {
    const rootName = options.rootName.replace(/\/$/, '');
    if (rootName.includes('/'))
      throw new Error(`The bag's root name ${JSON.stringify(rootName)} contains a '/'`);
    this.root = `${checkedRelativePath(rootName, "bag's root name")}/`;
    this.algorithms = [...new Set(['sha256', 'sha512', ...(options.algorithms ?? [])])];
    const unsupported = this.algorithms.filter((algorithm) => !SUPPORTED_ALGORITHMS.includes(algorithm));
    if (unsupported.length > 0) throw new Error(`Unsupported manifest algorithms: ${unsupported.join(', ')}`);
    this.bagInfo = Object.entries(options.bagInfo ?? {}).flatMap(([label, values]) =>
      (typeof values === 'string' ? [values] : values).map((value): [string, string] => [label, value]),
    );
    const badLabel = this.bagInfo.find(([label]) => /[:\r\n]/.test(label) || label === 'Payload-Oxum');
    if (badLabel) throw new Error(`bag-info.txt can't take the label ${JSON.stringify(badLabel[0])}`);
    if (!this.bagInfo.some(([label]) => label === 'Bagging-Date'))
      this.bagInfo.unshift(['Bagging-Date', new Date().toISOString().slice(0, 10)]);

    this.manifests = new SpilledManifests(options.spillDir, this.algorithms);
    this.ownedPath = typeof options.output === 'string' ? options.output : null;
    this.zip = new ZipWriter(options.output, join(this.manifests.dir, 'central-directory'));
  }

  /**
   * Streams a payload file into `data/<relativePath>` and resolves, once all its bytes went through, with
   * their digests for each manifest algorithm and each of `alsoHash` (for comparing with the source's own
   * checksums). `size`, when known, is checked against the bytes received, so that a truncated source is not
   * taken for a complete file. `content` is read whole or destroyed, also when the file is refused. When this
   * rejects, the zip is unusable (later additions fail at once): abort() it.
   */
  async addPayloadFile(
    relativePath: string,
    content: Readable,
    size?: number,
    alsoHash: readonly string[] = [],
  ): Promise<Record<string, string>> {
    return (await this.streamPayloadFile(relativePath, content, size, alsoHash)).digests;
  }

  /**
   * As addPayloadFile, but resolves as soon as the file's bytes are in the zip, with its `digests` to come:
   * the next file can stream while the hashing threads finish this one (a file of 1 MiB otherwise waited for
   * its digests before the next one was read). Await each file's `digests`; the manifests list the files in
   * the order they were added.
   */
  async streamPayloadFile(
    relativePath: string,
    content: Readable,
    size?: number,
    alsoHash: readonly string[] = [],
  ): Promise<{ digests: Promise<Record<string, string>> }> {
    let path: string;
    let hasher: StreamHasher;
    try {
      this.checkReady();
      path = this.claim(`data/${checkedRelativePath(relativePath, 'payload path')}`);
      hasher = createStreamHasher(this.payloadAlgorithms(alsoHash), size);
    } catch (error) {
      // a source left unread would hold its file (or connection) open
      content.destroy();
      throw error;
    }
    let bytes: number;
    try {
      bytes = await this.streamEntry(path, content, (chunk) => hasher.update(chunk), size);
    } catch (error) {
      hasher.drop();
      throw error;
    }
    return {
      digests: this.record(
        path,
        hasher.digest().then((hashes) => ({ hashes, bytes })),
        size,
      ),
    };
  }

  /**
   * Whether copyPayloadFile takes the payload file `relativePath`: the zip is written to a file (where a
   * hashing thread can write too), and the file is stored there (not a text file, which is deflated).
   */
  takesCopy(relativePath: string): boolean {
    return this.zip.takesReservations && !looksLikeText(relativePath);
  }

  /**
   * As streamPayloadFile, for a file of `size` bytes on this machine's disk, which `copyInto` copies into its
   * entry on a hashing thread, digesting it and computing its CRC-32 there: resolves as soon as the entry is
   * laid out in the zip, so that the next file is copied beside it on another thread. Only where takesCopy.
   */
  async copyPayloadFile(
    relativePath: string,
    size: number,
    copyInto: CopyIntoEntry,
    alsoHash: readonly string[] = [],
  ): Promise<{ digests: Promise<Record<string, string>> }> {
    this.checkReady();
    const path = this.claim(`data/${checkedRelativePath(relativePath, 'payload path')}`);
    const reserved = await this.zipStep(this.zip.reserve(this.root + path, size));
    const copied = copyInto(
      { zip: reserved.path, at: reserved.dataStart },
      this.payloadAlgorithms(alsoHash),
    ).then(async ({ copied: hashes, length, crc32 }) => {
      // a short file's entry is left incomplete: record() fails it, and the zip with it
      if (length === size && !this.failure) await reserved.complete(crc32!);
      return { hashes, bytes: length };
    });
    return { digests: this.record(path, copied, size) };
  }

  private payloadAlgorithms(alsoHash: readonly string[]): string[] {
    return [...new Set([...this.algorithms, ...alsoHash])];
  }

  /**
   * Puts a file into the manifests once its digests come, after the files added before it. A file that failed
   * (short, or its hashing or copy failed) fails the zip, as a failed entry does. The caller awaits what this
   * returns; a failure meanwhile is not left unhandled.
   */
  private record(
    path: string,
    done: Promise<{ hashes: Record<string, string>; bytes: number }>,
    size: number | undefined,
  ): Promise<Record<string, string>> {
    // awaited below once the files before it are recorded; failing earlier, it is not left unhandled
    done.catch(() => undefined);
    const recording = this.recorded.then(async () => {
      const { hashes, bytes } = await done;
      if (size !== undefined && bytes !== size)
        throw new Error(`${path}: the source gave ${bytes} bytes where ${size} were announced`);
      // aborted while the digest came: the manifests are gone
      if (this.failure) throw this.failure;
      await this.manifests.add({ path, hashes });
      this.payloadFiles++;
      this.payloadBytes += bytes;
      return hashes;
    });
    this.recorded = recording.catch((error: Error) => this.fail(error));
    recording.catch(() => undefined);
    return recording;
  }

  /** An explicit entry for a payload directory, so that an empty one survives; resolves once it is written. */
  async addDirectory(relativePath: string): Promise<void> {
    if (this.failure) throw this.failure;
    const path = this.claim(
      `data/${checkedRelativePath(relativePath.replace(/\/$/, ''), 'payload directory')}`,
    );
    await this.zipStep(this.zip.addDirectory(`${this.root}${path}/`));
  }

  /**
   * A tag file at the bag's root (e.g. PRESQT_FTS_METADATA.json), covered by the tag manifests; resolves once
   * all its content went through. Like payload files, add one at a time. A stream's `size`, when known, spares
   * its entry the ZIP64 sizes of one of unknown size, which some stream readers misread (docs/architecture.md).
   */
  async addTagFile(name: string, content: string | Readable, size?: number): Promise<void> {
    if (name.startsWith('data/') || RESERVED_TAG_FILE.test(name))
      throw new Error(`${name} can't be added as a tag file: it is payload or made by the writer`);
    await this.appendTagFile(checkedRelativePath(name, 'tag file name'), content, size);
  }

  /** Writes the tag files and the zip's central directory; resolves once the output has all of it. */
  async finalize(): Promise<void> {
    await this.recorded;
    await this.appendTagFile('bagit.txt', 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n');
    const bagInfo: [string, string][] = [
      ...this.bagInfo,
      ['Payload-Oxum', `${this.payloadBytes}.${this.payloadFiles}`],
    ];
    // a value must stay on its line
    await this.appendTagFile(
      'bag-info.txt',
      bagInfo.map(([label, value]) => `${label}: ${value.replace(/\s*[\r\n]+\s*/g, ' ')}\n`).join(''),
    );
    await this.manifests.close();
    for (const algorithm of this.algorithms)
      await this.appendTagFile(
        `manifest-${algorithm}.txt`,
        this.manifests.open(algorithm),
        await this.manifests.size(algorithm),
      );
    const tagFiles = [...this.tagFiles];
    for (const algorithm of this.algorithms)
      await this.appendTagFile(`tagmanifest-${algorithm}.txt`, manifest(tagFiles, algorithm));
    this.checkReady();
    await this.zipStep(this.zip.finish());
    await this.manifests.remove();
  }

  /** Stops writing (a cancelled job): the zip is left incomplete, and removed when the writer made the file. */
  async abort(): Promise<void> {
    this.fail(new Error('The bag zip was aborted'));
    await this.manifests.remove();
    if (this.ownedPath !== null) await rm(this.ownedPath, { force: true });
  }

  /** The zip can't be completed: it stops, and whatever waits on it or comes later fails with `error`. */
  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    // Without the error: the zip listens for the source's errors only once the entries before it are laid
    // out, and an error nobody listens for crashes the process (a worker died so); its entry fails all the same
    this.current?.destroy();
    this.zip.abort(error);
  }

  /** A step of writing the zip; one that fails fails the zip, whose later entries would have no place. */
  private async zipStep<T>(step: Promise<T>): Promise<T> {
    try {
      return await step;
    } catch (error) {
      this.fail(error as Error);
      throw error;
    }
  }

  private checkReady(): void {
    // a file streamed into a dead zip would wait for ever
    if (this.failure) throw this.failure;
    if (this.current) throw new Error('A file was added before the previous one had gone into the zip');
  }

  /**
   * Streams `content` into the zip entry `path`, showing each chunk to `each`; the count of its bytes, once
   * the entry is written. A failed entry fails the zip: it is left incomplete, and the entries after it would
   * have no place to go.
   */
  private async streamEntry(
    path: string,
    content: Readable,
    each: (chunk: Buffer) => unknown,
    size?: number,
  ): Promise<number> {
    this.current = content;
    try {
      return await this.zipStep(
        this.zip.addStream(this.root + path, content, { deflate: looksLikeText(path), size, each }),
      );
    } finally {
      this.current = null;
    }
  }

  private claim(path: string): string {
    if (this.names.has(path)) throw new Error(`${path} was already added to the bag`);
    this.names.add(path);
    return path;
  }

  /** A tag file into the zip, hashed as it streams, for the tag manifests; its size when known (a string's is). */
  private async appendTagFile(name: string, content: string | Readable, size?: number): Promise<void> {
    this.checkReady();
    const path = this.claim(name);
    const hasher = createMultiHasher(this.algorithms);
    const [stream, length] =
      typeof content === 'string'
        ? [Readable.from([Buffer.from(content)]), Buffer.byteLength(content)]
        : [content, size];
    await this.streamEntry(path, stream, (chunk) => hasher.update(chunk), length);
    this.tagFiles.push({ path, hashes: hasher.digest() });
  }
}

function manifestLine({ path, hashes }: ManifestLine, algorithm: string): string {
  return `${hashes[algorithm]}  ${encodeManifestPath(path)}`;
}

function manifest(lines: ManifestLine[], algorithm: string): string {
  return lines.map((line) => `${manifestLine(line, algorithm)}\n`).join('');
}

/** The payload manifests of a bag in the making, each a text file in a folder of their own until finalize(). */
class SpilledManifests {
  /** the writer's folder, which the zip's central directory shares */
  readonly dir: string;
  private readonly files: Map<string, LinesWriter<ManifestLine>>;

  constructor(spillDir: string, algorithms: readonly string[]) {
    this.dir = mkdtempSync(join(spillDir, 'bag-manifests-'));
    this.files = new Map(
      algorithms.map((algorithm) => [
        algorithm,
        new LinesWriter<ManifestLine>(this.path(algorithm), (line) => manifestLine(line, algorithm)),
      ]),
    );
  }

  async add(line: ManifestLine): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.append(line)));
  }

  /** Resolves once every manifest is on disk, to be opened. */
  async close(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.close()));
  }

  open(algorithm: string): Readable {
    return createReadStream(this.path(algorithm));
  }

  async size(algorithm: string): Promise<number> {
    return (await stat(this.path(algorithm))).size;
  }

  async remove(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.discard()));
    await rm(this.dir, { recursive: true, force: true });
  }

  private path(algorithm: string): string {
    return join(this.dir, `manifest-${algorithm}.txt`);
  }
}
