import type { Readable } from 'node:stream';
import type { ConnectorSession, DuplicateAction } from '@app/connectors';
import { createStreamHasher } from '@app/fixity';
import { JobStore } from '@app/jobs';
import type { FtsFileEntry } from '@app/metadata';
import type { JobContext } from './job-context';
import { meter } from './meter';
import { runLimited } from './run-limited';

/** A file to write into the destination, from a source target or from an uploaded bag. */
export interface IngestFile {
  /** names below the destination container */
  path: string[];
  /** where it came from, for the metadata file */
  sourcePath: string;
  size: number;
  /** the checksum the source vouches for (a target's hash, a bag manifest's); null when it has none */
  expectedHash(): Promise<{ algorithm: string; value: string } | null>;
  open(): Promise<Readable>;
}

type Outcome = 'created' | 'updated' | 'ignored';

interface FileReport {
  outcome: Outcome;
  failed: boolean;
  unverified: boolean;
  entry: FtsFileEntry;
}

export interface IngestReport {
  failedFixity: string[];
  unverified: string[];
  ignored: string[];
  updated: string[];
  files: Record<Outcome, FtsFileEntry[]>;
}

/**
 * Writes files into a destination container with bounded concurrency, checking fixity twice (decision 16):
 * the bytes that passed through against the source's checksum, and the destination's checksum of what it
 * stored against the bytes that passed. Each finished file is checkpointed, so a run resumed after a crash
 * skips what is already written and verified.
 */
export async function ingest(options: {
  session: ConnectorSession;
  containerId: string;
  duplicate: DuplicateAction;
  files: AsyncIterable<IngestFile>;
  context: JobContext;
  store: JobStore;
  concurrency: number;
  /** the checksums the source may vouch for (its expectedHash answers one of them) */
  sourceAlgorithms: readonly string[];
  /** the checksums the destination reports of what it stores, to compare the passed bytes with */
  destinationAlgorithms: readonly string[];
}): Promise<IngestReport> {
  const { session, containerId, duplicate, context, store } = options;
  const done = await store.checkpoints<FileReport>(context.record);
  // only what will be compared: the source's checksums and the destination's
  const algorithms = [...new Set([...options.sourceAlgorithms, ...options.destinationAlgorithms])];
  const report: IngestReport = {
    failedFixity: [],
    unverified: [],
    ignored: [],
    updated: [],
    files: { created: [], updated: [], ignored: [] },
  };
  const record = (path: string, file: FileReport) => {
    report.files[file.outcome].push(file.entry);
    if (file.failed) report.failedFixity.push(path);
    if (file.unverified) report.unverified.push(path);
    if (file.outcome === 'ignored') report.ignored.push(path);
    if (file.outcome === 'updated') report.updated.push(path);
  };

  await runLimited(options.concurrency, options.files, async (file) => {
    await context.checkCancelled();
    const path = `/${file.path.join('/')}`;
    const earlier = done.get(path);
    if (earlier) {
      record(path, earlier);
      context.addBytes(file.size);
      context.fileFinished();
      return;
    }
    // the source's checksum is fetched while the bytes move, not before
    const expecting = file.expectedHash();
    expecting.catch(() => undefined);
    const hasher = createStreamHasher(algorithms);
    let stored;
    try {
      stored = await session.putFile(
        containerId,
        file.path,
        {
          size: file.size,
          open: async () =>
            meter(await file.open(), (chunk) => {
              context.addBytes(chunk.length);
              return hasher.update(chunk);
            }),
        },
        duplicate,
      );
    } catch (error) {
      hasher.drop();
      throw error;
    }
    const expected = await expecting;
    // an ignored file was not read, so there are no passed bytes to check
    let passed: Record<string, string> | null = null;
    if (stored.outcome === 'ignored') hasher.drop();
    else passed = await hasher.digest();
    const sourceOk = !expected || !passed || passed[expected.algorithm] === expected.value.toLowerCase();
    const common = passed ? Object.keys(stored.hashes).find((algorithm) => passed[algorithm]) : undefined;
    const destinationOk = !common || !passed || stored.hashes[common] === passed[common];
    const failed = !sourceOk || !destinationOk;
    const report: FileReport = {
      outcome: stored.outcome,
      failed,
      unverified: !expected && !common,
      entry: {
        sourcePath: file.sourcePath,
        title: file.path[file.path.length - 1],
        sourceHashes: expected ? { [expected.algorithm]: expected.value } : {},
        destinationHashes: stored.hashes,
        destinationPath: stored.path,
        failedFixityInfo: failed
          ? [
              {
                NewGeneratedHash: (passed && expected && passed[expected.algorithm]) || '',
                algorithmUsed: expected?.algorithm ?? common ?? '',
                reasonFixityFailed: sourceOk
                  ? 'The destination stored bytes that differ from those sent.'
                  : "The bytes received differ from the source's checksum.",
              },
            ]
          : [],
        extra: {},
      },
    };
    if (stored.outcome === 'ignored') context.addBytes(file.size);
    await store.checkpoint(context.record, path, report);
    record(path, report);
    context.fileFinished();
  });
  return report;
}
