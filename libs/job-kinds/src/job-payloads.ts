/** What the API puts on the queues. Tokens are encrypted (docs/behaviour.md#tokens); the rest is not secret. */
interface JobPayloadBase {
  ticket: string;
  runId: string;
  /** null: no email when the job ends */
  email: string | null;
  /** the id of the request that started the job, for its log lines */
  requestId?: string;
}

export interface DownloadPayload extends JobPayloadBase {
  targetName: string;
  resourceId: string;
  sourceToken: string;
}

export type KeywordAction = 'automatic' | 'manual' | 'none';

export interface TransferPayload extends JobPayloadBase {
  sourceTargetName: string;
  sourceResourceId: string;
  sourceToken: string;
  destinationTargetName: string;
  /** null: a new top-level resource named after the source */
  destinationResourceId: string | null;
  destinationToken: string;
  duplicate: 'ignore' | 'update';
  keywordAction: KeywordAction;
  keywords: string[];
  /**
   * with `presqt-fairshare-evaluator-opt-in: yes`: the base of the API's links, to give the FAIR Evaluator the
   * written resource's address; null (or absent, in payloads queued before the opt-in existed): no evaluation
   */
  fairshareLinkBase?: string | null;
}

/** An upload: the validated package waits in the run's directory (see UploadedBag). */
export interface UploadPayload extends JobPayloadBase {
  targetName: string;
  /** null: a new top-level resource named after the bag's one folder in data/ */
  containerId: string | null;
  destinationToken: string;
  duplicate: 'ignore' | 'update';
}

/** What the API learnt while validating an uploaded bag, kept beside the zip for the worker. */
export interface UploadedBag {
  /** the bag's folder inside the zip, e.g. `my_bag/` */
  root: string;
  /** the one folder of data/ for a new top-level resource; null when uploading into a container */
  projectTitle: string | null;
  /** how many payload files there are (each a line of UPLOAD_PAYLOAD_FILE), and their bytes */
  files: number;
  bytes: number;
  /** some payload file lies in a folder below where the upload writes */
  nested: boolean;
  /** the bag's payload manifest algorithms: the checksums each payload file has */
  algorithms: string[];
  /** the bag's own PRESQT_FTS_METADATA.json, when valid, to merge */
  metadata: unknown;
}

/** One payload file of an uploaded bag, verified against its manifests. */
export interface UploadedFile {
  /** the file below data/ */
  bagPath: string;
  /** where it goes below the destination container */
  path: string;
  size: number;
  hashes: Record<string, string>;
}

export const UPLOAD_PACKAGE_FILE = 'package.zip';
/** the UploadedBag, as JSON */
export const UPLOAD_BAG_FILE = 'bag.json';
/** the UploadedFile records, as JSON lines (a bag may hold 100,000 files, too many to hold at once) */
export const UPLOAD_PAYLOAD_FILE = 'payload.jsonl';

export type JobPayload = DownloadPayload | TransferPayload | UploadPayload;

/** The target a job works on, for metrics: a download's source, an upload's or a transfer's destination. */
export function jobTarget(payload: JobPayload): string {
  return 'destinationTargetName' in payload ? payload.destinationTargetName : payload.targetName;
}
