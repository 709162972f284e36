import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { openZip, ZipLimits, type ZipArchive } from '@app/archive';
import { readJsonLines } from '@app/common';
import { JobFiles } from '@app/job-files';
import {
  JobStore,
  UPLOAD_BAG_FILE,
  UPLOAD_PACKAGE_FILE,
  UPLOAD_PAYLOAD_FILE,
  type JobRecord,
  type UploadPayload,
  type UploadedBag,
  type UploadedFile,
} from '@app/jobs';
import { mergeFtsMetadata, newAction, type FtsMetadata } from '@app/metadata';
import { incomingDigest, type ConnectorSession } from '@app/connectors';
import type { Target } from '@app/targets';
import { WorkerSettings } from '../worker.settings';
import { ingest, storedAlgorithms, type IngestFile } from './ingest';
import type { JobContext } from './job-context';
import type { JobHandler, JobOutcome } from './job-handler';
import { TargetSessions, type TargetSession } from './target-sessions';
import {
  commitWithMetadata,
  ingestResult,
  openDestination,
  takeBackEarlierRuns,
  writeOrTakeBack,
  type Destination,
} from './destination';

/**
 * An upload: the package the API validated (docs/behaviour.md#upload-packages) is written file by file from
 * the zip into the target, with duplicates handled as asked and every file checked against the bag's manifest
 * and the target's own checksum (docs/behaviour.md#fixity). The bag's metadata file is merged, not copied.
 */
@Injectable()
export class UploadJob implements JobHandler<'upload'> {
  readonly kind = 'upload';

  constructor(
    private readonly sessions: TargetSessions,
    private readonly store: JobStore,
    private readonly worker: WorkerSettings,
    private readonly zipLimits: ZipLimits,
    private readonly files: JobFiles,
  ) {}

  async takeBackEarlierRuns(payload: UploadPayload, record: JobRecord, workDir: string): Promise<void> {
    const { session } = await this.destination(payload);
    await takeBackEarlierRuns(this.store, record, session, payload.containerId, workDir);
  }

  async run(payload: UploadPayload, context: JobContext, workDir: string): Promise<JobOutcome<'upload'>> {
    // what the API received and checked, fetched into the run's directory (yauzl reads a zip at random)
    const [bagFile, payloadFile, packageFile] = [
      UPLOAD_BAG_FILE,
      UPLOAD_PAYLOAD_FILE,
      UPLOAD_PACKAGE_FILE,
    ].map((name) => join(workDir, name));
    await this.files.fetch(context.record, UPLOAD_BAG_FILE, bagFile);
    await this.files.fetch(context.record, UPLOAD_PAYLOAD_FILE, payloadFile);
    await this.files.fetch(context.record, UPLOAD_PACKAGE_FILE, packageFile);
    const bag = JSON.parse(await readFile(bagFile, 'utf8')) as UploadedBag;
    const { target, session } = await this.destination(payload);
    context.setTotals(bag.files, bag.bytes);
    context.setMessage(`Uploading files to ${target.entry.readable_name}...`);
    // opened before a project is made, so that a package it can't read leaves none behind
    const zip = await openZip(packageFile, this.zipLimits);
    try {
      // cancelled while the package came: no project is made for nothing
      await context.checkCancelled();
      const destination = await openDestination(this.store, context, session, {
        containerId: payload.containerId,
        title: bag.projectTitle,
        message: 'PresQT Upload',
        nested: bag.nested,
        stagingDir: workDir,
      });
      return await writeOrTakeBack(context, destination.writer, () =>
        this.write({ payload, context, workDir, target, session, bag, payloadFile, zip, destination }),
      );
    } finally {
      zip.close();
    }
  }

  private destination(payload: UploadPayload): Promise<TargetSession> {
    return this.sessions.open(payload.targetName, payload.destinationToken);
  }

  /** The bag's files into the destination, then its metadata file merged and everything committed. */
  private async write(upload: UploadRun): Promise<JobOutcome<'upload'>> {
    const { payload, context, target, session, bag, destination } = upload;
    const report = await ingest({
      workDir: upload.workDir,
      writer: destination.writer,
      duplicate: payload.duplicate,
      context,
      store: this.store,
      concurrency: this.worker.fileTransfers,
      destinationAlgorithms: storedAlgorithms(target),
      ownContainer: destination.newProject,
      ...bagFiles(upload),
    });
    await context.checkCancelled();
    context.setMessage('Making final metadata updates...');
    const action = newAction({
      details: `PresQT Upload to ${target.entry.readable_name}`,
      actionType: 'resource_upload',
      sourceTargetName: 'Local Machine',
      destinationTargetName: target.name,
      sourceUsername: null,
      destinationUsername: session.username,
      keywords: {},
      files: report.files,
    });
    const uploaded = bag.metadata as FtsMetadata | null;
    await commitWithMetadata(destination, session, context, mergeFtsMetadata(uploaded, [action]));
    return {
      message: report.fixity.message('Upload'),
      result: ingestResult(report, target.name, destination.containerId),
    };
  }
}

/** One upload run's parts. */
interface UploadRun {
  payload: UploadPayload;
  context: JobContext;
  workDir: string;
  target: Target;
  session: ConnectorSession;
  bag: UploadedBag;
  /** the bag's UploadedFile records, as JSON lines */
  payloadFile: string;
  zip: ZipArchive;
  destination: Destination;
}

/**
 * The bag's payload files, read from the zip, with the manifest checksum to compare: every payload file is in
 * every manifest, so one the target also reports is chosen when the bag has one.
 */
function bagFiles({ target, bag, payloadFile, zip }: UploadRun): {
  files: AsyncIterable<IngestFile>;
  sourceAlgorithms: string[];
} {
  const algorithm = [...target.connector.hashAlgorithms, ...bag.algorithms].find((name) =>
    bag.algorithms.includes(name),
  );
  return {
    files: ingestFiles(payloadFile, bag.root, zip, algorithm),
    sourceAlgorithms: algorithm ? [algorithm] : [],
  };
}

/** The payload files read from the records the API wrote, one at a time (a bag may hold 100,000). */
async function* ingestFiles(
  payloadFile: string,
  root: string,
  zip: ZipArchive,
  algorithm: string | undefined,
): AsyncIterable<IngestFile> {
  for await (const file of readJsonLines<UploadedFile>(payloadFile)) {
    const open = () => zip.openEntry(`${root}data/${file.bagPath}`);
    yield {
      path: file.path.split('/'),
      sourcePath: `/${file.bagPath}`,
      size: file.size,
      expectedHashes: async () => (algorithm ? { [algorithm]: file.hashes[algorithm] } : {}),
      knownHashes: (wanted) => manifestHashes(file, wanted, open),
      open,
    };
  }
}

/**
 * A payload file's checksums among `wanted` from the bag's manifests; where they have none of them, the first
 * computed from the bag on this machine's disk. That read costs no upstream request, and the checksum is then
 * one the destination keeps for the file (a WebDAV server's OC-Checksum) rather than none.
 */
async function manifestHashes(
  file: UploadedFile,
  wanted: readonly string[],
  open: () => Promise<Readable>,
): Promise<Record<string, string>> {
  const listed = wanted.filter((algorithm) => file.hashes[algorithm] !== undefined);
  if (listed.length > 0)
    return Object.fromEntries(listed.map((algorithm) => [algorithm, file.hashes[algorithm].toLowerCase()]));
  if (wanted.length === 0) return {};
  return { [wanted[0]]: await incomingDigest({ size: file.size, open }, wanted[0]) };
}
