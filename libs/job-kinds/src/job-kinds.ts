import type { FairshareTestResult } from '@app/fairshare';
import type { DownloadPayload, TransferPayload, UploadPayload } from './job-payloads';

/** The kinds of asynchronous job; each has its own Bull queue and its description below. */
export const JOB_KINDS = ['download', 'upload', 'transfer'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const SOURCE_TOKEN_HEADER = 'presqt-source-token';
export const DESTINATION_TOKEN_HEADER = 'presqt-destination-token';

/** The header carrying the user's token at each target a job works with. */
export const TOKEN_HEADERS = { source: SOURCE_TOKEN_HEADER, destination: DESTINATION_TOKEN_HEADER } as const;
export type TokenRole = keyof typeof TOKEN_HEADERS;

/** What every job kind reports of fixity (docs/behaviour.md#fixity). */
export interface FixityResult {
  /** paths below the bag's data/ (with a leading `/`) whose checksums disagreed */
  failed_fixity: string[];
  /** paths whose target gave no checksum to compare with */
  fixity_unverified: string[];
}

export interface DownloadResult extends FixityResult {
  zip_name: string;
}

/** What an upload or transfer reports of the files it wrote (docs/behaviour.md#duplicates). */
export interface WriteResult extends FixityResult {
  resources_ignored: string[];
  resources_updated: string[];
  destination_target_name: string;
  destination_resource_id: string;
}

export interface TransferResult extends WriteResult {
  source_resource_id: string;
  initial_keywords: string[];
  enhanced_keywords: string[];
  /** with the FAIRshare opt-in, every test's result, or one `{error}` when the evaluator failed; else empty */
  fairshare_evaluation_results: Array<FairshareTestResult | { error: string }>;
}

/** Each kind's queue payload and the result fields its finished status shows. */
export interface JobKindTypes {
  download: { payload: DownloadPayload; result: DownloadResult };
  upload: { payload: UploadPayload; result: WriteResult };
  transfer: { payload: TransferPayload; result: TransferResult };
}

export type PayloadOf<K extends JobKind> = JobKindTypes[K]['payload'];
export type ResultOf<K extends JobKind> = JobKindTypes[K]['result'];

/** Everything about a kind that the API, the worker, the emails and the CLI need besides its types. */
export interface JobKindDescription {
  /** the kind as a sentence starts it */
  title: string;
  /**
   * the targets whose tokens find the user's job of this kind, in the order its ticket takes them
   * (docs/behaviour.md#tickets); each token comes in its TOKEN_HEADERS header
   */
  tokens: readonly TokenRole[];
  /** the status formats besides plain JSON: a download's status can answer its zip */
  formats: readonly string[];
  /** other names of the kind in its status path: the PresQT web client cancels a transfer at `transfers/` */
  spellings: readonly string[];
}

export const JOB_KIND_DESCRIPTIONS: Record<JobKind, JobKindDescription> = {
  download: {
    title: 'Download',
    tokens: ['source'],
    formats: ['json', 'zip'],
    spellings: [],
  },
  upload: {
    title: 'Upload',
    tokens: ['destination'],
    formats: [],
    spellings: [],
  },
  transfer: {
    title: 'Transfer',
    tokens: ['source', 'destination'],
    formats: [],
    spellings: ['transfers'],
  },
};

export function isJobKind(value: string): value is JobKind {
  return (JOB_KINDS as readonly string[]).includes(value);
}

/** The status message of a run just started. */
export function startedMessage(kind: JobKind): string {
  return `${JOB_KIND_DESCRIPTIONS[kind].title} is being processed on the server.`;
}

/**
 * The message of a run the user cancelled, without a closing period as the first implementation wrote it: the
 * PresQT web client goes on with the sentence ("... by the user. Some resources may have still been uploaded.").
 */
export function cancelledMessage(kind: JobKind): string {
  return `${JOB_KIND_DESCRIPTIONS[kind].title} was cancelled by the user`;
}

/** The status message of a run the user is cancelling, while what it wrote is taken back. */
export function cancellingMessage(kind: JobKind): string {
  return `${JOB_KIND_DESCRIPTIONS[kind].title} is being cancelled.`;
}

/** The headers whose tokens find the user's job of `kind`, in the order its ticket takes them. */
export function tokenHeaders(kind: JobKind): string[] {
  return JOB_KIND_DESCRIPTIONS[kind].tokens.map((role) => TOKEN_HEADERS[role]);
}
