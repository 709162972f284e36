import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { BagZipWriter } from '@app/bagit';
import { AppConfig } from '@app/config';
import { type RemoteFile, isTopMetadataFile, readMetadataFile } from '@app/connectors';
import { JobStore, TokenCipher, type DownloadPayload } from '@app/jobs';
import {
  FTS_METADATA_FILE,
  INVALID_FTS_METADATA_FILE,
  mergeFtsMetadata,
  newAction,
  type FtsFileEntry,
  type FtsMetadata,
} from '@app/metadata';
import { TargetsRegistry } from '@app/targets';
import { countFiles } from './count-files';
import { compareChecksums, fixityMessage, type FixityCheck } from './fixity';
import type { JobContext } from './job-context';
import type { JobHandler, JobOutcome } from './job-handler';
import { meter } from '@app/common';
import { runLimited } from './run-limited';
import { PartialZips } from './zip-resume';

const SOFTWARE_AGENT = 'presqt-broker (PresQT API v1)';

/** The checkpoint of a file in the zip: what a resumed run needs to list it without fetching it again. */
interface ZippedFile {
  size: number;
  hashes: Record<string, string>;
  check: FixityCheck;
  entry: FtsFileEntry;
}

/**
 * A download: every file of the resource streams from the target into one BagIt zip (docs/behaviour.md#download-bag), hashed on
 * the way and checked against the target's own checksums (docs/behaviour.md#fixity), with PRESQT_FTS_METADATA.json as a
 * tag file (docs/behaviour.md#metadata-file). The zip is written beside its final name and renamed only when complete.
 *
 * Each file in the zip is checkpointed; a run resumed after its worker died copies those files from the
 * partial zip it left, not from the target.
 */
@Injectable()
export class DownloadJob implements JobHandler<'download'> {
  readonly kind = 'download';

  constructor(
    private readonly targets: TargetsRegistry,
    private readonly cipher: TokenCipher,
    private readonly store: JobStore,
    private readonly config: AppConfig,
  ) {}

  async run(payload: DownloadPayload, context: JobContext, workDir: string): Promise<JobOutcome<'download'>> {
    const target = this.targets.require(payload.targetName);
    const session = await target.connector.open(this.cipher.decrypt(payload.sourceToken));
    const resource = await session.getResource(payload.resourceId);
    const readable = target.entry.readable_name;

    await countFiles(session, resource.id, resource.title, context, workDir);
    context.setMessage(`Downloading files from ${readable}...`);

    const bagName = `${target.name}_download_${resource.id}`;
    const zipName = `${bagName}.zip`;
    const zips = await PartialZips.in(workDir, zipName);
    const done = await this.store.checkpoints<ZippedFile>(context.record);
    const earlier = await zips.entries(bagName, new Map([...done].map(([path, file]) => [path, file.size])));
    const partial = zips.next;
    const sourceAlgorithms = target.entry.supported_hash_algorithms;
    // sha256 first: the bag needs it anyway, so it costs the target's side nothing extra to compare
    const vouched = [...new Set(['sha256', ...target.connector.hashAlgorithms])];
    const writer = new BagZipWriter({
      output: partial,
      rootName: bagName,
      algorithms: sourceAlgorithms,
      bagInfo: {
        'Bag-Software-Agent': SOFTWARE_AGENT,
        'External-Identifier': `${target.name}:${resource.id}`,
      },
    });
    const abort = () => void writer.abort();
    context.signal.addEventListener('abort', abort);

    // One file at a time into the zip, each stream opened but read only in its turn: overlapping them gained
    // no speed here and held far more memory (bench/).
    const inTurn = serializer();
    const failedFixity: string[] = [];
    const unverified: string[] = [];
    const entries: FtsFileEntry[] = [];
    const list = (file: ZippedFile, path: string) => {
      if (file.check.failed) failedFixity.push(path);
      if (file.check.unverified) unverified.push(path);
      entries.push(file.entry);
      context.fileFinished();
    };
    let existingMetadata: FtsMetadata | null = null;
    try {
      const walk = session.walk(resource.id, { workDir });
      await runLimited(this.config.fileTransfers, walk, async (entry) => {
        await context.checkCancelled();
        if (entry.kind === 'folder') {
          writer.addDirectory(entry.path);
          return;
        }
        let payloadPath = entry.path;
        if (isTopMetadataFile(entry, resource.title)) {
          // the resource's own metadata file is merged into the new one, not copied (docs/behaviour.md#metadata-file)
          existingMetadata = await readMetadataFile(entry);
          if (existingMetadata) {
            context.fileFinished();
            context.addBytes(entry.size);
            return;
          }
          payloadPath = `${resource.title}/${INVALID_FTS_METADATA_FILE}`;
        }
        const zipped = done.get(payloadPath);
        const copy = earlier.get(payloadPath);
        if (zipped && copy && zipped.size === entry.size && copy.size === entry.size) {
          const hashes = await inTurn(() =>
            writer.addPayloadFile(
              payloadPath,
              meter(copy.open(), (chunk) => context.addBytes(chunk.length)),
              entry.size,
            ),
          );
          if (hashes.sha256 !== zipped.hashes.sha256)
            throw new Error(
              `The interrupted run's copy of /${payloadPath} is damaged; please download again`,
            );
          list(zipped, `/${payloadPath}`);
          return;
        }
        // Sources are opened and their checksums fetched concurrently; the zip takes one entry at a time.
        const [sourceHashes, stream] = await Promise.all([entry.sourceHashes(vouched), entry.open()]);
        const hashes = await inTurn(() =>
          writer.addPayloadFile(
            payloadPath,
            meter(stream, (chunk) => context.addBytes(chunk.length)),
            entry.size,
            vouched,
          ),
        );
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
        await this.store.checkpoint(context.record, payloadPath, file);
        list(file, `/${payloadPath}`);
      });

      context.setMessage('Creating PRESQT_FTS_METADATA...');
      const action = newAction({
        details: `PresQT Download from ${readable}`,
        actionType: 'resource_download',
        sourceTargetName: target.name,
        destinationTargetName: 'Local Machine',
        sourceUsername: session.username,
        destinationUsername: null,
        keywords: {},
        files: { created: entries, updated: [], ignored: [] },
      });
      writer.addTagFile(
        FTS_METADATA_FILE,
        JSON.stringify(mergeFtsMetadata(existingMetadata, [action]), null, 2),
      );
      await writer.finalize();
    } catch (error) {
      // removes the partial zip; earlier ones go with the run's directory when the job ends
      await writer.abort();
      throw error;
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    context.throwIfCancelled();
    await rename(partial, join(workDir, zipName));
    await zips.removeEarlier();
    return {
      message: fixityMessage('Download', { failedFixity, unverified }),
      result: {
        zip_name: zipName,
        failed_fixity: failedFixity,
        fixity_unverified: unverified,
        ticket_number: payload.ticket,
      },
    };
  }
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
