import { Inject, Injectable } from '@nestjs/common';
import { PathLimits } from '@app/archive';
import type { ConnectorSession, RemoteFile, ResourceDetail } from '@app/connectors';
import { FAIRSHARE_TEST_IDS, FairshareEvaluator } from '@app/fairshare';
import { JobStore, type JobRecord, type TransferPayload, type TransferResult } from '@app/jobs';
import { KEYWORD_ENHANCER, normalizeKeywords, resourceKeywords, type KeywordEnhancer } from '@app/keywords';
import { mergeFtsMetadata, newAction, type FtsAction, type FtsMetadata } from '@app/metadata';
import type { Target } from '@app/targets';
import { WorkerSettings } from '../worker.settings';
import { countFiles } from './count-files';
import type { JobContext } from './job-context';
import type { JobHandler, JobOutcome } from './job-handler';
import {
  commitWithMetadata,
  ingestResult,
  openDestination,
  takeBackEarlierRuns,
  writeOrTakeBack,
  type Destination,
} from './destination';
import { ingest, storedAlgorithms, type IngestFile, type IngestReport } from './ingest';
import { TargetSessions, type TargetSession } from './target-sessions';
import { WalkedResource } from './walked-resource';

/** One transfer run's parts. */
interface TransferRun {
  payload: TransferPayload;
  context: JobContext;
  workDir: string;
  source: Target;
  destination: Target;
  from: ConnectorSession;
  to: ConnectorSession;
  resource: ResourceDetail;
  /** how many leading folders of the source's paths are left out at the destination */
  strip: number;
  place: Destination;
}

/**
 * A transfer: files stream from the source target straight into the destination (no copy on disk), with
 * duplicates handled as asked, fixity checked on both sides, keywords carried as the keyword action says
 * (docs/behaviour.md#transfer-keywords) and the metadata file merged at the destination. The source is never
 * written to.
 */
@Injectable()
export class TransferJob implements JobHandler<'transfer'> {
  readonly kind = 'transfer';

  constructor(
    private readonly sessions: TargetSessions,
    private readonly store: JobStore,
    private readonly worker: WorkerSettings,
    private readonly pathLimits: PathLimits,
    @Inject(KEYWORD_ENHANCER) private readonly enhancer: KeywordEnhancer,
    private readonly evaluator: FairshareEvaluator,
  ) {}

  async takeBackEarlierRuns(payload: TransferPayload, record: JobRecord, workDir: string): Promise<void> {
    const { session } = await this.destination(payload);
    await takeBackEarlierRuns(this.store, record, session, payload.destinationResourceId, workDir);
  }

  async run(payload: TransferPayload, context: JobContext, workDir: string): Promise<JobOutcome<'transfer'>> {
    // The destination's session opens (a request to its upstream that checks the token) while the source is
    // opened and counted; the first failure of either is the job's.
    const destination = this.sessions.target(payload.destinationTargetName);
    const opening = this.destination(payload);
    // handled below, but it may fail while the source is still opening
    opening.catch(() => undefined);
    const { target: source, session: from } = await this.sessions.open(
      payload.sourceTargetName,
      payload.sourceToken,
    );
    const resource = await from.getResource(payload.sourceResourceId, { summary: true });
    const rules = {
      fileSizeProblem: (size: number) => destination.connector.fileSizeProblem?.(size) ?? null,
      pathLimits: this.pathLimits,
    };
    const [{ folders }, { session: to }] = await Promise.all([
      countFiles(from, resource.id, resource.title, context, workDir, rules),
      opening,
    ]);
    context.setMessage(
      `Transferring files from ${source.entry.readable_name} to ${destination.entry.readable_name}...`,
    );
    // A new project is named after the resource, so its files go in without the resource's own folder.
    const strip = payload.destinationResourceId === null ? 1 : 0;
    const place = await openDestination(this.store, context, to, {
      containerId: payload.destinationResourceId,
      title: resource.title,
      message: `PresQT Transfer from ${source.entry.readable_name}`,
      nested: folders > strip,
      stagingDir: workDir,
    });
    const transfer = { payload, context, workDir, source, destination, from, to, resource, strip, place };
    const outcome = await writeOrTakeBack(context, place.writer, () => this.write(transfer));
    const evaluation = await this.evaluate(payload, context, outcome.result.destination_resource_id);
    return { ...outcome, result: { ...outcome.result, ...evaluation } };
  }

  private destination(payload: TransferPayload): Promise<TargetSession> {
    return this.sessions.open(payload.destinationTargetName, payload.destinationToken);
  }

  /**
   * With the FAIRshare opt-in, what the FAIR Evaluator finds of the resource written, at its address here
   * (docs/behaviour.md#fairshare); a failing evaluator is reported in the results and fails nothing.
   */
  private async evaluate(
    payload: TransferPayload,
    context: JobContext,
    writtenId: string,
  ): Promise<Pick<TransferResult, 'fairshare_evaluation_results'>> {
    if (!payload.fairshareLinkBase) return { fairshare_evaluation_results: [] };
    context.setMessage('Running FAIRshare Evaluator Service, this may take several minutes...');
    const link = `${payload.fairshareLinkBase}/api_v1/targets/${payload.destinationTargetName}/resources/${encodeURIComponent(writtenId)}/`;
    try {
      return { fairshare_evaluation_results: await this.evaluator.evaluate(link, FAIRSHARE_TEST_IDS) };
    } catch (error) {
      return { fairshare_evaluation_results: [{ error: (error as Error).message }] };
    }
  }

  /** The source's files into the destination, then keywords and the metadata file, and the commit. */
  private async write(transfer: TransferRun): Promise<JobOutcome<'transfer'>> {
    const { payload, context, workDir, source, destination, from, to, resource, strip, place } = transfer;
    const walked = new WalkedResource(from, resource, context, workDir);
    const sourceAlgorithms = source.connector.hashAlgorithms;
    const report = await ingest({
      writer: place.writer,
      duplicate: payload.duplicate,
      files: filesOf(walked, strip, sourceAlgorithms),
      context,
      store: this.store,
      concurrency: this.worker.fileTransfers,
      sourceAlgorithms,
      destinationAlgorithms: storedAlgorithms(destination),
      ownContainer: place.newProject,
      workDir,
    });

    await context.checkCancelled();
    context.setMessage('Making final metadata updates...');
    const keywords = await this.keywordsCarried(payload, from, source, resource, walked.ownMetadata);
    const carried = [...keywords.initial, ...keywords.enhanced];
    if (carried.length > 0 && destination.supports('keywords_upload')) {
      const present = await to.keywords(place.containerId).catch(() => []);
      await to.setKeywords(place.containerId, normalizeKeywords([...present, ...carried]));
    }
    const action = this.transferAction(transfer, keywords, report.files);
    await commitWithMetadata(place, to, context, mergeFtsMetadata(walked.ownMetadata, [action], carried));
    return {
      message: report.fixity.message('Transfer'),
      result: {
        ...ingestResult(report, payload.destinationTargetName, place.containerId),
        source_resource_id: resource.id,
        initial_keywords: keywords.initial,
        enhanced_keywords: keywords.enhanced,
        // filled in once the write has succeeded
        fairshare_evaluation_results: [],
      },
    };
  }

  /** The transfer's action in the metadata file, with the keywords it carried. */
  private transferAction(
    { payload, source, destination, from, to }: TransferRun,
    keywords: CarriedKeywords,
    files: IngestReport['files'],
  ): FtsAction {
    return newAction({
      details: `PresQT Transfer from ${source.entry.readable_name} to ${destination.entry.readable_name}`,
      actionType: 'resource_transfer_in',
      sourceTargetName: source.name,
      destinationTargetName: destination.name,
      sourceUsername: from.username,
      destinationUsername: to.username,
      keywords:
        payload.keywordAction === 'none'
          ? {}
          : {
              sourceKeywordsAdded: keywords.initial,
              sourceKeywordsEnhanced: keywords.enhanced,
              ontologies: [],
              enhancer: keywords.enhancer,
            },
      files,
    });
  }

  /**
   * What the keyword action carries to the destination (docs/behaviour.md#transfer-keywords): the source's
   * keywords (`initial`) and the new ones (`enhanced`): the request's, and for `automatic` also what the
   * enhancer finds for the source's, read with the resource's title. `none` carries nothing.
   */
  private async keywordsCarried(
    payload: TransferPayload,
    from: ConnectorSession,
    source: Target,
    resource: { id: string; title: string },
    metadata: FtsMetadata | null,
  ): Promise<CarriedKeywords> {
    if (payload.keywordAction === 'none') return { initial: [], enhanced: [], enhancer: 'none' };
    const own = source.supports('keywords') ? await from.keywords(resource.id).catch(() => []) : [];
    const initial = resourceKeywords(own, metadata);
    const found =
      payload.keywordAction === 'automatic'
        ? await this.enhancer.enhance(initial, { title: resource.title })
        : { terms: [], enhancer: 'none' };
    const known = new Set(initial);
    return {
      initial,
      enhanced: normalizeKeywords([...payload.keywords, ...found.terms]).filter(
        (keyword) => !known.has(keyword),
      ),
      enhancer: found.enhancer,
    };
  }
}

/** The keywords a transfer carries, and the enhancer that found the new ones (`none` when none was asked). */
interface CarriedKeywords {
  initial: string[];
  enhanced: string[];
  enhancer: string;
}

/** The source's files as files to ingest (its own valid metadata file is merged instead). */
async function* filesOf(
  walked: WalkedResource,
  strip: number,
  algorithms: readonly string[],
): AsyncIterable<IngestFile> {
  for await (const entry of walked.entries()) {
    if (entry.kind === 'file') yield ingestFile(entry, strip, algorithms);
  }
}

function ingestFile(file: RemoteFile, strip: number, algorithms: readonly string[]): IngestFile {
  // a source that keeps no checksums reads the file to answer them: asked ahead of the write only where that
  // read is of this machine's disk (the filesystem's), never a second download
  const cheapHashes = !file.checksumsOfBytes || file.copyInto !== undefined;
  return {
    path: file.path.split('/').slice(strip),
    sourcePath: `/${file.path}`,
    size: file.size,
    expectedHashes: () => file.sourceHashes(algorithms),
    checksumsOfBytes: file.checksumsOfBytes,
    ...(cheapHashes ? { knownHashes: (wanted: readonly string[]) => file.sourceHashes(wanted) } : {}),
    open: () => file.open(),
    copyInto: file.copyInto,
  };
}
