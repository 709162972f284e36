import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  findMetadataFile,
  writeMetadataFile,
  type ConnectorSession,
  type ResourceSummary,
  type ResourceWriter,
} from '@app/connectors';
import { mergeFtsMetadata, type FtsMetadata } from '@app/metadata';
import { JobStore, type JobKind, type JobRecord, type WriteResult } from '@app/jobs';
import type { JobContext } from './job-context';
import type { JobOutcome } from './job-handler';
import type { IngestReport } from './ingest';

const CONTAINER_CHECKPOINT = '#container';

/** Where an upload or transfer writes, as the job asked for it. */
export interface DestinationRequest {
  /** the container to write into; null for a new project */
  containerId: string | null;
  /** the new project's title */
  title: string | null;
  /** the commit message, where the target has commits */
  message: string;
  /** whether files go into folders below the container */
  nested: boolean;
  stagingDir: string;
}

/** The container a job writes into, and its writer. */
export interface Destination {
  containerId: string;
  writer: ResourceWriter;
  /** the job made the container (a new project) */
  newProject: boolean;
  /** this run of the job made it (WriterOptions.startsEmpty) */
  startsEmpty: boolean;
}

/** Opens the writer into the job's container: the given one, or its new project (see destinationContainer). */
export async function openDestination(
  store: JobStore,
  context: JobContext,
  session: ConnectorSession,
  request: DestinationRequest,
): Promise<Destination> {
  const { id: containerId, madeNow } = await destinationContainer(
    store,
    context,
    session,
    request.containerId,
    request.title,
  );
  const newProject = request.containerId === null;
  const writer = await session.openWriter(containerId, {
    newProject,
    startsEmpty: madeNow,
    message: request.message,
    nested: request.nested,
    stagingDir: request.stagingDir,
  });
  return { containerId, writer, newProject, startsEmpty: madeNow };
}

/** The checkpoint of a job's new project: written before it is made, and again with its id once it is. */
interface ContainerCheckpoint {
  id?: string;
}

/**
 * The new project of a job, made once and remembered in the run's checkpoints, so that a run resumed after a
 * crash reuses it instead of making a second one. A run killed between making the project and recording it
 * leaves only the first checkpoint: the resumed run then asks the target for the project made with the job's
 * claim, where the target can tell. `madeNow`: this run made it, so it holds nothing yet.
 */
async function destinationContainer(
  store: JobStore,
  context: JobContext,
  session: ConnectorSession,
  containerId: string | null,
  projectTitle: string | null,
): Promise<{ id: string; madeNow: boolean }> {
  if (containerId !== null) return { id: containerId, madeNow: false };
  const earlier = (await store.checkpoints<ContainerCheckpoint>(context.record)).get(CONTAINER_CHECKPOINT);
  if (earlier?.id !== undefined) return { id: earlier.id, madeNow: false };
  const claim = projectClaim(context.record);
  let claimed: ResourceSummary | null | undefined = null;
  if (earlier) claimed = await session.claimedProject?.(claim);
  // the first checkpoint: a project is about to be made
  else await store.checkpoint(context.record, new Map([[CONTAINER_CHECKPOINT, {}]]));
  const project = claimed ?? (await session.createProject(projectTitle ?? 'Untitled', claim));
  await store.checkpoint(context.record, new Map([[CONTAINER_CHECKPOINT, { id: project.id }]]));
  return { id: project.id, madeNow: !claimed };
}

/** The claim of a job on the project it makes: the same for every run of the job, and no secret. */
function projectClaim(record: JobRecord): string {
  return createHash('sha256').update(`${record.kind}:${record.ticket}:${record.runId}`).digest('hex');
}

/**
 * Records the job in the container's metadata file (`metadata`: the job's action over what it carried, merged
 * into the file there: its actions first, keywords united; docs/behaviour.md#metadata-file) and commits
 * everything the job wrote, unless the user is cancelling it: once committing, a cancel comes too late (a
 * connector cannot always take back a commit whole).
 */
export async function commitWithMetadata(
  destination: Destination,
  session: ConnectorSession,
  context: JobContext,
  metadata: FtsMetadata,
): Promise<void> {
  // A container this run made holds only what the job wrote, and a job writes a metadata file among its files
  // only where the source's own was invalid (a valid one is merged instead): there is nothing to merge.
  const existing = destination.startsEmpty ? null : await findMetadataFile(session, destination.containerId);
  await writeMetadataFile(
    destination.writer,
    mergeFtsMetadata(existing, metadata.actions, metadata.allKeywords),
  );
  await context.beginCommit();
  await destination.writer.commit();
}

/** The result fields an upload or transfer reports of the files it wrote (docs/behaviour.md#job-status). */
export function ingestResult(report: IngestReport, targetName: string, destinationId: string): WriteResult {
  return {
    ...report.fixity.result(),
    resources_ignored: report.ignored,
    resources_updated: report.updated,
    destination_target_name: targetName,
    destination_resource_id: destinationId,
  };
}

const logger = new Logger('Destination');

/**
 * The writing part of an upload or transfer. When it fails or is cancelled, the writer takes back what the
 * job wrote, so the target is left as the job found it (a killed worker is no failure: its job resumes; nor is
 * a run another worker carries on, or one handed back by a stopping worker, which keep what was written). The outcome can take it back too, should the
 * job turn out to have been cancelled just as it finished.
 */
export async function writeOrTakeBack<K extends JobKind>(
  context: JobContext,
  writer: ResourceWriter,
  write: () => Promise<JobOutcome<K>>,
): Promise<JobOutcome<K>> {
  const takeBack = async () => writer.abandon?.();
  try {
    return { ...(await write()), takeBack };
  } catch (error) {
    if (context.keepsWrites) throw error;
    await takeBack().catch((undo: unknown) => {
      logger.warn(
        `could not take back what a failed job wrote: ${undo instanceof Error ? undo.message : ''}`,
      );
    });
    throw error;
  }
}

/**
 * Takes back what the earlier runs of a job wrote when it was cancelled while no worker held it (its worker had
 * died): the runs' checkpoints say which container they wrote into, and what each file changed.
 */
export async function takeBackEarlierRuns(
  store: JobStore,
  record: JobRecord,
  session: ConnectorSession,
  containerId: string | null,
  stagingDir: string,
): Promise<void> {
  const checkpoints = await store.checkpoints<ContainerCheckpoint & { staged?: unknown }>(record);
  // without a recorded id (the run died before recording it, or its checkpoint was refused or lost), the
  // target is asked for the project made with the job's claim, if any
  const container =
    containerId ??
    checkpoints.get(CONTAINER_CHECKPOINT)?.id ??
    (await session.claimedProject?.(projectClaim(record)))?.id;
  if (container === undefined) return;
  const writer = await session.openWriter(container, {
    newProject: containerId === null,
    message: 'PresQT: taking back a cancelled job',
    stagingDir,
  });
  const staged = [...checkpoints]
    .filter(([key]) => key !== CONTAINER_CHECKPOINT)
    .map(([, value]) => value.staged);
  writer.restage(staged.filter((value) => value !== undefined));
  await writer.abandon?.();
}
