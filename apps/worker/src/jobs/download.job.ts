import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { BagZipWriter } from '@app/bagit';
import { AppConfig } from '@app/config';
import type { RemoteFile } from '@app/connectors';
import { TokenCipher, type DownloadPayload } from '@app/jobs';
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
import { fixityMessage } from './fixity-message';
import type { JobContext } from './job-context';
import type { JobHandler, JobOutcome } from './job-handler';
import { isTopMetadataFile, readMetadataFile } from './metadata-file';
import { meter } from './meter';
import { runLimited } from './run-limited';

const SOFTWARE_AGENT = 'presqt-broker (PresQT API v1)';

/**
 * A download: every file of the resource streams from the target into one BagIt zip (decision 15), hashed on
 * the way and checked against the target's own checksums (decision 16), with PRESQT_FTS_METADATA.json as a
 * tag file (decision 17). The zip is written beside its final name and renamed only when complete.
 */
@Injectable()
export class DownloadJob implements JobHandler<DownloadPayload> {
  readonly kind = 'download';

  constructor(
    private readonly targets: TargetsRegistry,
    private readonly cipher: TokenCipher,
    private readonly config: AppConfig,
  ) {}

  async run(payload: DownloadPayload, context: JobContext, workDir: string): Promise<JobOutcome> {
    const target = this.targets.require(payload.targetName);
    const session = await target.connector.open(this.cipher.decrypt(payload.sourceToken));
    const resource = await session.getResource(payload.resourceId);
    const readable = target.entry.readable_name;

    await countFiles(session, resource.id, resource.title, context);
    context.setMessage(`Downloading files from ${readable}...`);

    const bagName = `${target.name}_download_${resource.id}`;
    const zipName = `${bagName}.zip`;
    const partial = join(workDir, `${zipName}.partial`);
    const sourceAlgorithms = target.entry.supported_hash_algorithms;
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

    const inTurn = serializer();
    const failedFixity: string[] = [];
    const unverified: string[] = [];
    const entries: FtsFileEntry[] = [];
    let existingMetadata: FtsMetadata | null = null;
    try {
      await runLimited(this.config.fileTransfers, session.walk(resource.id), async (entry) => {
        await context.checkCancelled();
        if (entry.kind === 'folder') {
          writer.addDirectory(entry.path);
          return;
        }
        let payloadPath = entry.path;
        if (isTopMetadataFile(entry, resource.title)) {
          // the resource's own metadata file is merged into the new one, not copied (decision 17)
          existingMetadata = await readMetadataFile(entry);
          if (existingMetadata) {
            context.fileFinished();
            context.addBytes(entry.size);
            return;
          }
          payloadPath = `${resource.title}/${INVALID_FTS_METADATA_FILE}`;
        }
        // Sources are opened and their checksums fetched concurrently; the zip takes one entry at a time.
        // sha256 first: the bag needs it anyway, so it costs the target's side nothing extra to compare
        const [sourceHash, stream] = await Promise.all([
          entry.sourceHash(['sha256', ...sourceAlgorithms]),
          entry.open(),
        ]);
        const hashes = await inTurn(() =>
          writer.addPayloadFile(
            payloadPath,
            meter(stream, (chunk) => context.addBytes(chunk.length)),
            entry.size,
          ),
        );
        const check = fixityOf(`/${payloadPath}`, sourceHash, hashes);
        if (check.failed) failedFixity.push(check.path);
        if (check.unverified) unverified.push(check.path);
        entries.push(fileEntry(entry, payloadPath, sourceHash, hashes, check.failed));
        context.fileFinished();
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
      await writer.abort();
      await rm(partial, { force: true });
      throw error;
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    context.throwIfCancelled();
    await rename(partial, join(workDir, zipName));
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

function fixityOf(
  path: string,
  sourceHash: { algorithm: string; value: string } | null,
  computed: Record<string, string>,
): { path: string; failed: boolean; unverified: boolean } {
  if (!sourceHash || !computed[sourceHash.algorithm]) return { path, failed: false, unverified: true };
  return {
    path,
    failed: computed[sourceHash.algorithm] !== sourceHash.value.toLowerCase(),
    unverified: false,
  };
}

function fileEntry(
  file: RemoteFile,
  payloadPath: string,
  sourceHash: { algorithm: string; value: string } | null,
  computed: Record<string, string>,
  failed: boolean,
): FtsFileEntry {
  return {
    sourcePath: `/${file.path}`,
    title: payloadPath.split('/').pop() ?? payloadPath,
    sourceHashes: sourceHash ? { [sourceHash.algorithm]: sourceHash.value } : {},
    destinationHashes: {},
    destinationPath: `/${payloadPath}`,
    failedFixityInfo:
      failed && sourceHash
        ? [
            {
              NewGeneratedHash: computed[sourceHash.algorithm],
              algorithmUsed: sourceHash.algorithm,
              reasonFixityFailed: "The hash of the bytes received differs from the source's hash.",
            },
          ]
        : [],
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
