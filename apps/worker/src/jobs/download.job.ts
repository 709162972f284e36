import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { BagZipWriter, SOFTWARE_AGENT, type CopyIntoEntry } from '@app/bagit';
import type { ConnectorSession, RemoteFile, ResourceDetail } from '@app/connectors';
import { JobFiles } from '@app/job-files';
import { JobStore, type DownloadPayload } from '@app/jobs';
import {
  FTS_METADATA_FILE,
  INVALID_FTS_METADATA_FILE,
  ftsMetadataBytes,
  ftsMetadataSize,
  mergeFtsMetadata,
  newAction,
  type FtsFileEntry,
  type FtsMetadata,
} from '@app/metadata';
import type { Target } from '@app/targets';
import { WorkerSettings } from '../worker.settings';
import { countFiles } from './count-files';
import { checksumsOfBytes, compareChecksums, FixityTally, type FixityCheck } from './fixity';
import type { JobContext } from './job-context';
import type { JobHandler, JobOutcome } from './job-handler';
import { JsonLinesWriter, meter, SpilledList } from '@app/common';
import { runLimited } from './run-limited';
import { TargetSessions } from './target-sessions';
import { WalkedResource } from './walked-resource';
import { PartialZips, type EarlierEntry } from './zip-resume';

/** In the run's directory: the metadata file's entries of the zipped files, as JSON lines. */
const METADATA_ENTRIES_FILE = 'metadata-entries.jsonl';

/** The checkpoint of a file in the zip: what a resumed run needs to list it without fetching it again. */
interface ZippedFile {
  size: number;
  hashes: Record<string, string>;
  check: FixityCheck;
  entry: FtsFileEntry;
}

/**
 * A download: every file of the resource goes from the target into one BagIt zip (streamed, or from this
 * machine's disk copied into its entry by a hashing thread), hashed on the way and checked against the
 * target's own checksums, with PRESQT_FTS_METADATA.json as a tag file
 * (docs/behaviour.md#download-bag, #fixity, #metadata-file). The zip is written in the run's directory and
 * kept in the job-file store (moved beside it, or uploaded) only when complete.
 *
 * Each file in the zip is checkpointed; a run resumed after its worker died copies those files from the
 * partial zip it left, not from the target.
 */
@Injectable()
export class DownloadJob implements JobHandler<'download'> {
  readonly kind = 'download';

  constructor(
    private readonly sessions: TargetSessions,
    private readonly store: JobStore,
    private readonly worker: WorkerSettings,
    private readonly files: JobFiles,
  ) {}

  async run(payload: DownloadPayload, context: JobContext, workDir: string): Promise<JobOutcome<'download'>> {
    const { target, session } = await this.sessions.open(payload.targetName, payload.sourceToken);
    const resource = await session.getResource(payload.resourceId, { summary: true });
    await countFiles(session, resource.id, resource.title, context, workDir);
    context.setMessage(`Downloading files from ${target.entry.readable_name}...`);

    const zip = await this.startZip(target, resource, context, workDir);
    const abort = () => void zip.writer.abort();
    context.signal.addEventListener('abort', abort);
    try {
      const walked = new WalkedResource(session, resource, context, workDir);
      await this.zipFiles(zip, walked, resource, context);
      context.setMessage('Creating PRESQT_FTS_METADATA...');
      await zip.entries.close();
      const metadata = downloadMetadata(target, session, zip, walked.ownMetadata);
      await zip.writer.addTagFile(
        FTS_METADATA_FILE,
        Readable.from(ftsMetadataBytes(metadata)),
        await ftsMetadataSize(metadata),
      );
      await zip.writer.finalize();
    } catch (error) {
      // removes the partial zip; earlier ones go with the run's directory when the job ends
      await zip.writer.abort();
      await zip.entries.discard();
      throw error;
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    context.throwIfCancelled();
    await this.files.keep(context.record, zip.name, zip.partials.next);
    await zip.partials.removeEarlier();
    return {
      message: zip.fixity.message('Download'),
      result: { zip_name: zip.name, ...zip.fixity.result() },
    };
  }

  /** The run's zip: a new partial one, and what the earlier runs' partial zips already hold. */
  private async startZip(
    target: Target,
    resource: ResourceDetail,
    context: JobContext,
    workDir: string,
  ): Promise<DownloadZip> {
    const bagName = `${target.name}_download_${resource.id}`;
    const name = `${bagName}.zip`;
    const partials = await PartialZips.in(workDir, name);
    const checkpointed = await this.store.checkpoints<ZippedFile>(context.record);
    const sizes = new Map([...checkpointed].map(([path, file]) => [path, file.size]));
    const writer = new BagZipWriter({
      output: partials.next,
      rootName: bagName,
      algorithms: target.entry.supported_hash_algorithms,
      bagInfo: {
        'Bag-Software-Agent': SOFTWARE_AGENT,
        'External-Identifier': `${target.name}:${resource.id}`,
      },
      spillDir: workDir,
    });
    const entriesFile = join(workDir, METADATA_ENTRIES_FILE);
    return {
      name,
      partials,
      writer,
      checkpointed,
      earlier: await partials.entries(bagName, sizes),
      // sha256 first: the bag needs it anyway, so it costs the target's side nothing extra to compare
      vouched: [...new Set(['sha256', ...target.connector.hashAlgorithms])],
      fixity: new FixityTally(),
      entriesFile,
      entries: new JsonLinesWriter(entriesFile),
      // One file at a time into the zip, each stream opened but read only in its turn (overlapping them
      // gained no speed here and held far more memory), a copied file's turn over once its entry is laid out;
      // a file's digests are awaited outside its turn.
      inTurn: serializer(),
    };
  }

  /**
   * Every file of the resource into the zip, but its own valid metadata file, which is merged into the bag's;
   * an invalid one goes in under another name.
   */
  private async zipFiles(
    zip: DownloadZip,
    walked: WalkedResource,
    resource: ResourceDetail,
    context: JobContext,
  ): Promise<void> {
    await runLimited(this.worker.fileTransfers, walked.entries(), async (entry) => {
      await context.checkCancelled();
      if (entry.kind === 'folder') return zip.writer.addDirectory(entry.path);
      const payloadPath = walked.isOwnMetadata(entry)
        ? `${resource.title}/${INVALID_FTS_METADATA_FILE}`
        : entry.path;
      const file =
        (await copyFromEarlierRun(zip, entry, payloadPath, context)) ??
        (await this.fetchIntoZip(zip, entry, payloadPath, context));
      zip.fixity.add(`/${payloadPath}`, file.check);
      await zip.entries.append(file.entry);
      context.fileFinished();
    });
  }

  /** A file fetched from the target into the zip, its checksums compared and checkpointed. */
  private async fetchIntoZip(
    zip: DownloadZip,
    entry: RemoteFile,
    payloadPath: string,
    context: JobContext,
  ): Promise<ZippedFile> {
    const { fetched, digests } =
      entry.copyInto && zip.writer.takesCopy(payloadPath)
        ? await copyIntoZip(zip, entry, entry.copyInto, payloadPath, context)
        : await streamIntoZip(zip, entry, payloadPath, context);
    const hashes = await digests;
    const sourceHashes = fetched ?? checksumsOfBytes(zip.vouched, hashes);
    const check = compareChecksums(
      sourceHashes,
      hashes,
      "The hash of the bytes received differs from the source's hash.",
    );
    const file: ZippedFile = {
      size: entry.size,
      hashes,
      check,
      entry: fileEntry(entry, payloadPath, sourceHashes, check),
    };
    await this.store.checkpoint(context.record, new Map([[payloadPath, file]]));
    return file;
  }
}

/** A download run's zip in the making, and what is known of its files so far. */
interface DownloadZip {
  name: string;
  partials: PartialZips;
  writer: BagZipWriter;
  /** the files earlier runs of the job checkpointed, by payload path */
  checkpointed: Map<string, ZippedFile>;
  /** the files earlier runs' partial zips hold complete, by payload path */
  earlier: Map<string, EarlierEntry>;
  /** the checksums compared with the target's */
  vouched: string[];
  fixity: FixityTally;
  /** the metadata file's entries of the zipped files, kept on disk in `entriesFile` until the end */
  entriesFile: string;
  entries: JsonLinesWriter<FtsFileEntry>;
  inTurn: <T>(work: () => Promise<T>) => Promise<T>;
}

/** A file put into the zip: the checksums its target keeps (null: taken from the bytes), and its digests to come. */
interface Putting {
  fetched: Record<string, string> | null;
  digests: Promise<Record<string, string>>;
}

/**
 * A file streamed into the zip. Sources are opened and their checksums fetched concurrently; the zip takes one
 * entry at a time, its turn passing to the next file once this one's bytes are in.
 */
async function streamIntoZip(
  zip: DownloadZip,
  entry: RemoteFile,
  payloadPath: string,
  context: JobContext,
): Promise<Putting> {
  const opening = entry.open();
  const [fetched, stream] = await Promise.all([
    entry.checksumsOfBytes ? null : entry.sourceHashes(zip.vouched),
    opening,
  ]).catch(async (error: unknown) => {
    // an opened source the zip never gets would hold its file (or connection) open
    (await opening.catch(() => null))?.destroy();
    throw error;
  });
  const { digests } = await zip.inTurn(() =>
    zip.writer.streamPayloadFile(
      payloadPath,
      meter(stream, (chunk) => context.addBytes(chunk.length)),
      entry.size,
      zip.vouched,
    ),
  );
  return { fetched, digests };
}

/** A file on this machine's disk, copied into its entry by a hashing thread (copyIntoEntry). */
async function copyIntoZip(
  zip: DownloadZip,
  entry: RemoteFile,
  copyInto: CopyIntoEntry,
  payloadPath: string,
  context: JobContext,
): Promise<Putting> {
  const fetched = entry.checksumsOfBytes ? null : await entry.sourceHashes(zip.vouched);
  const { digests } = await copyIntoEntry(zip, payloadPath, entry.size, copyInto, zip.vouched, context);
  return { fetched, digests };
}

/**
 * Copies a file into its entry on a hashing thread (BagZipWriter.copyPayloadFile), digesting it there: the
 * zip's turn passes on once its entry is laid out, so the next file is copied beside it; its bytes count once
 * its digests come.
 */
async function copyIntoEntry(
  zip: DownloadZip,
  payloadPath: string,
  size: number,
  copyInto: CopyIntoEntry,
  alsoHash: readonly string[],
  context: JobContext,
): Promise<{ digests: Promise<Record<string, string>> }> {
  const { digests } = await zip.inTurn(() =>
    zip.writer.copyPayloadFile(payloadPath, size, copyInto, alsoHash),
  );
  const counted = digests.then((hashes) => {
    context.addBytes(size);
    return hashes;
  });
  return { digests: counted };
}

/**
 * A file an earlier run zipped and checkpointed, copied from its partial zip; null when there is none. A stored
 * entry is copied as a byte range by a hashing thread, a deflated one (a text file) inflated through this one;
 * either way its digests are of the bytes the new zip holds, and its sha256 must be the one checkpointed.
 */
async function copyFromEarlierRun(
  zip: DownloadZip,
  entry: RemoteFile,
  payloadPath: string,
  context: JobContext,
): Promise<ZippedFile | null> {
  const zipped = zip.checkpointed.get(payloadPath);
  const copy = zip.earlier.get(payloadPath);
  if (!zipped || !copy || zipped.size !== entry.size || copy.size !== entry.size) return null;
  const { digests } =
    copy.copyInto && zip.writer.takesCopy(payloadPath)
      ? await copyIntoEntry(zip, payloadPath, entry.size, copy.copyInto, [], context)
      : await zip.inTurn(() =>
          zip.writer.streamPayloadFile(
            payloadPath,
            meter(copy.open(), (chunk) => context.addBytes(chunk.length)),
            entry.size,
          ),
        );
  if ((await digests).sha256 !== zipped.hashes.sha256)
    throw new Error(`The interrupted run's copy of /${payloadPath} is damaged; please download again`);
  return zipped;
}

/** The bag's metadata file: the download's action, merged with the resource's own file when valid. */
function downloadMetadata(
  target: Target,
  session: ConnectorSession,
  zip: DownloadZip,
  existing: FtsMetadata | null,
): FtsMetadata {
  const action = newAction({
    details: `PresQT Download from ${target.entry.readable_name}`,
    actionType: 'resource_download',
    sourceTargetName: target.name,
    destinationTargetName: 'Local Machine',
    sourceUsername: session.username,
    destinationUsername: null,
    keywords: {},
    files: { created: new SpilledList(zip.entriesFile), updated: [], ignored: [] },
  });
  return mergeFtsMetadata(existing, [action]);
}

function fileEntry(
  file: RemoteFile,
  payloadPath: string,
  sourceHashes: Record<string, string>,
  check: FixityCheck,
): FtsFileEntry {
  return {
    sourcePath: `/${file.path}`,
    title: payloadPath.split('/').pop() ?? payloadPath,
    sourceHashes,
    destinationHashes: {},
    destinationPath: `/${payloadPath}`,
    failedFixityInfo: check.failures,
    extra: {},
  };
}

/** Runs the functions given to it one after another, in the order they were given. */
function serializer(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
}
