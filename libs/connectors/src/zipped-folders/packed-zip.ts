import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openZip, type ZipArchive } from '@app/archive';
import { findBagRoot, readPayloadManifests, zipBagSource } from '@app/bagit';
import { meter } from '@app/common';
import { createStreamHasher } from '@app/fixity';
import type { RemoteFile } from '../connector';
import { ConnectorError } from '../connector-error';

/** How the zip of a resource with folders is named on a target without folders. */
export const PACKED_SUFFIX = '.presqt.zip';

export function packedZipName(title: string): string {
  return `${title}${PACKED_SUFFIX}`;
}

export interface PackedFile {
  /** relative to the bag's data/ */
  path: string;
  size: number;
  /** the bag's manifest checksums of the file */
  checksums: Record<string, string>;
}

/** Where a fetched zip is kept: a job's directory keeps it for the job's later walks; else it is temporary. */
export interface PackedZipPlace {
  dir: string;
  /** the zip stays in `dir` (a job's directory, removed with the job) instead of going when released */
  keep: boolean;
}

/**
 * A BagIt zip that this service packed, fetched from a target onto the local disk (checked against the
 * target's checksums on the way) and read through its central directory. It is open while streams read it;
 * once released and idle it is closed, and a temporary copy removed. A kept copy opens again for a file asked
 * for later, and serves the job's next walk without a second download.
 */
export class PackedZip {
  private zip: ZipArchive | null;
  private streams = 0;
  private released = false;

  private constructor(
    private readonly local: string,
    private readonly keep: boolean,
    zip: ZipArchive,
    private readonly root: string,
    /** payload files in the order of the zip */
    readonly files: PackedFile[],
    /** payload folders, including empty ones, relative to data/ */
    readonly folders: string[],
  ) {
    this.zip = zip;
  }

  /**
   * The packed zip behind `file`, or null when the file is not a bag (a zip of the user's that happens to
   * carry the suffix). `algorithms` are the target's checksums, to check the fetched bytes against.
   */
  static async fetch(
    file: RemoteFile,
    algorithms: readonly string[],
    place: PackedZipPlace,
  ): Promise<PackedZip | null> {
    await mkdir(place.dir, { recursive: true });
    const name = place.keep
      ? `packed-${createHash('sha256').update(`${file.path}\0${file.size}`).digest('hex')}.zip`
      : `packed-${randomUUID()}.zip`;
    const local = join(place.dir, name);
    if (!(place.keep && (await exists(local)))) await download(file, algorithms, local);
    let zip: ZipArchive | undefined;
    try {
      zip = await openZip(local);
      const root = findBagRoot(zip.entries);
      const { files, folders } = payloadOf(zip, root, await readPayloadManifests(zipBagSource(zip, root)));
      return new PackedZip(local, place.keep, zip, root, files, folders);
    } catch {
      // openZip refuses what is not a zip, findBagRoot what is not one bag
      zip?.close();
      await rm(local, { force: true });
      return null;
    }
  }

  /** A payload file's bytes; the zip stays open until the stream ends. */
  async open(path: string): Promise<Readable> {
    if (!this.zip) {
      if (!this.keep) throw new Error(`The packed zip holding ${path} was already closed`);
      this.zip = await openZip(this.local);
    }
    const stream = await this.zip.openEntry(`${this.root}data/${path}`);
    this.streams++;
    stream.once('close', () => {
      this.streams--;
      this.closeIfIdle();
    });
    return stream;
  }

  /** The walk is over: the zip closes once no stream reads it. */
  release(): void {
    this.released = true;
    this.closeIfIdle();
  }

  private closeIfIdle(): void {
    if (!this.released || this.streams > 0 || !this.zip) return;
    this.zip.close();
    this.zip = null;
    if (!this.keep) void rm(this.local, { force: true });
  }
}

function payloadOf(
  zip: ZipArchive,
  root: string,
  checksums: Map<string, Record<string, string>>,
): { files: PackedFile[]; folders: string[] } {
  const data = `${root}data/`;
  const files: PackedFile[] = [];
  const folders: string[] = [];
  for (const entry of zip.entries) {
    if (!entry.path.startsWith(data)) continue;
    const path = entry.path.slice(data.length);
    if (entry.isDirectory) folders.push(path);
    else files.push({ path, size: entry.size, checksums: checksums.get(path) ?? {} });
  }
  return { files, folders };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Copies a remote file to `local`, checking its bytes against the checksums the target keeps of it. The copy
 * is written beside its name and renamed once checked, so a kept copy is always a whole, checked one.
 */
async function download(file: RemoteFile, algorithms: readonly string[], local: string): Promise<void> {
  const [expected, stream] = await Promise.all([file.sourceHashes(algorithms), file.open()]);
  const partial = `${local}.partial-${randomUUID()}`;
  const hasher = createStreamHasher(Object.keys(expected), file.size);
  try {
    await pipeline(
      meter(stream, (chunk) => hasher.update(chunk)),
      createWriteStream(partial, { flags: 'wx' }),
    );
    const received = await hasher.digest();
    for (const [algorithm, value] of Object.entries(expected)) {
      if (received[algorithm] !== value.toLowerCase()) {
        throw new ConnectorError(
          502,
          `${file.path} arrived with a ${algorithm} that differs from the one its target keeps; try again.`,
        );
      }
    }
    await rename(partial, local);
  } catch (error) {
    hasher.drop();
    await rm(partial, { force: true });
    throw error;
  }
}
