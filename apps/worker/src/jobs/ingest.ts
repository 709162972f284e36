import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { DuplicateAction, PutFileResult, RemoteFile, ResourceWriter } from '@app/connectors';
import { createStreamHasher, type CopyTarget, type StreamHasher } from '@app/fixity';
import { JobStore } from '@app/jobs';
import type { FtsFileEntry } from '@app/metadata';
import type { Target } from '@app/targets';
import { bothChecks, checksumsOfBytes, compareChecksums, FixityTally, type FixityCheck } from './fixity';
import type { JobContext } from './job-context';
import { JsonLinesWriter, meter, SpilledList } from '@app/common';
import { runLimited } from './run-limited';
import { CheckpointQueue } from './checkpoint-queue';

/** A file to write into the destination, from a source target or from an uploaded bag. */
export interface IngestFile {
  /** names below the destination container */
  path: string[];
  /** where it came from, for the metadata file */
  sourcePath: string;
  size: number;
  /** the checksums the source vouches for (a target's, a bag manifest's); empty when it has none */
  expectedHashes(): Promise<Record<string, string>>;
  /** the source keeps no checksums: they are taken from the bytes that pass (RemoteFile.checksumsOfBytes) */
  checksumsOfBytes?: true;
  /** checksums known without fetching the file from a remote source, for the writer: IncomingFile.knownHashes */
  knownHashes?: (wanted: readonly string[]) => Promise<Record<string, string>>;
  open(): Promise<Readable>;
  /** a source on this machine's disk: RemoteFile.copyInto */
  copyInto?: RemoteFile['copyInto'];
}

type Outcome = PutFileResult['outcome'];

/** The checkpoint of a written file: what a resumed run needs to report it without writing it again. */
interface FileReport {
  outcome: Outcome;
  check: FixityCheck;
  entry: FtsFileEntry;
  staged?: unknown;
}

export interface IngestReport {
  fixity: FixityTally;
  ignored: string[];
  updated: string[];
  /** the metadata file's entries of the files, by outcome, kept on disk */
  files: Record<Outcome, SpilledList<FtsFileEntry>>;
}

export interface IngestOptions {
  writer: ResourceWriter;
  duplicate: DuplicateAction;
  files: AsyncIterable<IngestFile>;
  context: JobContext;
  store: JobStore;
  concurrency: number;
  /** the checksums the source may vouch for (its expectedHashes answers among them) */
  sourceAlgorithms: readonly string[];
  /**
   * the checksums the destination reports of what it stores, to compare the passed bytes with
   * (storedAlgorithms)
   */
  destinationAlgorithms: readonly string[];
  /**
   * The job made the container itself (a new project), so any file already there was written by an earlier
   * run of this job, killed before its checkpoint: it counts as created, as it would have uninterrupted.
   */
  ownContainer: boolean;
  /** the run's directory, where the metadata file's entries wait */
  workDir: string;
}

/**
 * Writes files into a destination container with bounded concurrency, checking fixity twice
 * (docs/behaviour.md#fixity): the bytes that passed through against the source's checksums, and the
 * destination's checksums of what it stored against the bytes that passed. Each finished file is checkpointed
 * (in groups: CheckpointQueue), so a run resumed after a crash skips what is already written and verified (and
 * hands the writer what it staged, for its commit).
 */
export async function ingest(options: IngestOptions): Promise<IngestReport> {
  const { writer, context, store } = options;
  const done = await store.checkpoints<FileReport>(context.record);
  writer.restage([...done.values()].flatMap((file) => (file.staged === undefined ? [] : [file.staged])));
  const report: IngestReport = {
    fixity: new FixityTally(),
    ignored: [],
    updated: [],
    // a run starts the lists afresh, earlier runs' files included
    files: byOutcome((outcome) => new SpilledList(join(options.workDir, `metadata-${outcome}.jsonl`))),
  };
  const entries = byOutcome((outcome) => new JsonLinesWriter<FtsFileEntry>(report.files[outcome].path));
  const record = async (path: string, file: FileReport) => {
    await entries[file.outcome].append(file.entry);
    report.fixity.add(path, file.check);
    if (file.outcome === 'ignored') report.ignored.push(path);
    if (file.outcome === 'updated') report.updated.push(path);
  };

  const checkpoints = new CheckpointQueue(store, context);
  try {
    await runLimited(options.concurrency, options.files, async (file) => {
      await context.checkCancelled();
      const path = `/${file.path.join('/')}`;
      const earlier = done.get(path);
      if (earlier) {
        await record(path, earlier);
        context.addBytes(file.size);
        context.fileFinished();
        return;
      }
      const written = await writeFile(file, options);
      await record(path, written);
      checkpoints.add(path, written);
    });
    await checkpoints.flush();
    await Promise.all(Object.values(entries).map((writer) => writer.close()));
  } catch (error) {
    // what was written stays remembered for a run that carries the job on (a worker handing it back)
    await checkpoints.flush().catch(() => undefined);
    await Promise.all(Object.values(entries).map((writer) => writer.discard()));
    throw error;
  }
  return report;
}

/** The checksums a destination reports of a file it stored. */
export function storedAlgorithms(destination: Target): readonly string[] {
  return destination.connector.storedHashAlgorithms ?? destination.connector.hashAlgorithms;
}

function byOutcome<T>(make: (outcome: Outcome) => T): Record<Outcome, T> {
  return { created: make('created'), updated: make('updated'), ignored: make('ignored') };
}

/**
 * The bytes of one file as the writer reads them: hashed on their way and counted in the job's progress. A
 * retried write reads the file again; the hashing starts over and progress does not count the bytes twice.
 */
class PassedBytes {
  private hasher: StreamHasher | null = null;
  /** the digests of the last copy, where the writer copied the file instead of reading it */
  private copied: Record<string, string> | null = null;
  private reported = 0;

  constructor(
    private readonly algorithms: readonly string[],
    private readonly size: number,
    private readonly context: JobContext,
  ) {}

  watch(source: Readable): Readable {
    this.hasher?.drop();
    this.copied = null;
    const hasher = createStreamHasher(this.algorithms, this.size);
    this.hasher = hasher;
    let position = 0;
    return meter(source, (chunk) => {
      position += chunk.length;
      if (position > this.reported) {
        this.context.addBytes(position - this.reported);
        this.reported = position;
      }
      return hasher.update(chunk);
    });
  }

  /** Copies the file with `copyInto` (of the source) into `target`, hashing what passes; the stored digests. */
  async copy(
    copyInto: NonNullable<IngestFile['copyInto']>,
    target: CopyTarget,
  ): Promise<Record<string, string>> {
    this.hasher?.drop();
    this.hasher = null;
    this.copied = null;
    const { copied, stored } = await copyInto(target, this.algorithms);
    this.copied = copied;
    this.countRest();
    return stored;
  }

  /** The digests of the last read or copy; null when the writer never read the file. */
  async digest(): Promise<Record<string, string> | null> {
    this.countRest();
    const hasher = this.hasher;
    this.hasher = null;
    return hasher ? hasher.digest() : this.copied;
  }

  drop(): void {
    this.countRest();
    this.hasher?.drop();
    this.hasher = null;
  }

  /** a file left unread (ignored) is done all the same as far as progress goes */
  private countRest(): void {
    if (this.size > this.reported) this.context.addBytes(this.size - this.reported);
    this.reported = this.size;
  }
}

/**
 * The fixity of a written file: the bytes that passed (null when the writer did not read them) against the
 * source's checksums and against what the destination stored.
 */
function checkWritten(
  stored: PutFileResult,
  digests: Record<string, string> | null,
  expected: Record<string, string>,
): FixityCheck {
  if (!digests) {
    return compareChecksums(
      expected,
      stored.hashes,
      "The destination holds bytes that differ from the source's checksum.",
    );
  }
  return bothChecks(
    compareChecksums(expected, digests, "The bytes received differ from the source's checksum."),
    compareChecksums(stored.hashes, digests, 'The destination stored bytes that differ from those sent.'),
  );
}

const NOT_COMPARED: FixityCheck = { failed: false, unverified: false, failures: [] };

/** Writes one file and compares checksums on both sides. */
async function writeFile(file: IngestFile, options: IngestOptions): Promise<FileReport> {
  // only what will be compared: the source's checksums (of a source that keeps none, the one taken from the
  // bytes: see checksumsOfBytes) and the destination's
  const vouched = file.checksumsOfBytes ? options.sourceAlgorithms.slice(0, 1) : options.sourceAlgorithms;
  const algorithms = [...new Set([...vouched, ...options.destinationAlgorithms])];
  // the source's checksums are fetched while the bytes move, not before
  const expecting = file.checksumsOfBytes ? null : file.expectedHashes();
  expecting?.catch(() => undefined);
  const passed = new PassedBytes(algorithms, file.size, options.context);
  let stored: PutFileResult;
  try {
    const { copyInto } = file;
    stored = await options.writer.putFile(
      file.path,
      {
        size: file.size,
        open: async () => passed.watch(await file.open()),
        knownHashes: file.knownHashes,
        copyInto: copyInto && ((target) => passed.copy(copyInto, target)),
      },
      options.duplicate,
    );
  } catch (error) {
    passed.drop();
    throw error;
  }
  const writtenEarlier = options.ownContainer && stored.outcome !== 'created';
  // An ignored file is not compared: what passed (if anything did) is not what the target keeps; unless an
  // earlier run of the job wrote it, left unread now: then what it stores is compared with the source's.
  const compared = stored.outcome !== 'ignored' || writtenEarlier;
  if (!compared) passed.drop();
  const digests = compared ? await passed.digest() : null;
  const expected =
    file.checksumsOfBytes && digests
      ? checksumsOfBytes(options.sourceAlgorithms, digests)
      : await (expecting ?? file.expectedHashes());
  const check = compared ? checkWritten(stored, digests, expected) : NOT_COMPARED;
  return {
    outcome: writtenEarlier ? 'created' : stored.outcome,
    check,
    staged: stored.staged,
    entry: {
      sourcePath: file.sourcePath,
      title: file.path[file.path.length - 1],
      sourceHashes: expected,
      destinationHashes: stored.hashes,
      destinationPath: stored.path,
      failedFixityInfo: check.failures,
      extra: {},
    },
  };
}
