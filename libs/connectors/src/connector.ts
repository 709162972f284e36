import type { Readable } from 'node:stream';
import type { CopiedFile, CopyTarget, EntryTarget } from '@app/fixity';
import type { UpstreamSettings } from './http/upstream.settings';

/**
 * The contract every repository connector implements. A connector serves one target entry of the targets
 * file; `open` checks a user's token once and returns a session scoped to that user.
 */

export type ResourceKind = 'container' | 'item';

export const SEARCH_FILTERS = ['general', 'title', 'id', 'author', 'keywords'] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];

export const HASH_ALGORITHMS = ['md5', 'sha256'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

export interface ResourceSummary {
  kind: ResourceKind;
  kindName: string;
  id: string;
  /** id of the containing resource; null for a top-level resource */
  container: string | null;
  title: string;
}

export interface ResourceDetail {
  kind: ResourceKind;
  kindName: string;
  id: string;
  title: string;
  /** ISO 8601 UTC */
  dateCreated: string;
  /** ISO 8601 UTC */
  dateModified: string;
  hashes: Record<HashAlgorithm, string | null>;
  extra: Record<string, unknown>;
  children: ResourceSummary[];
  /**
   * Why the user may read this resource but not write into it (someone else's published record), where the
   * target tells; absent otherwise. An upload or transfer into it is refused before it starts.
   */
  readOnly?: string;
}

export interface CollectionQuery {
  /** at most one search filter; absent means the user's own top-level resources */
  search?: { filter: SearchFilter; value: string };
  /** 1-based */
  page: number;
}

export interface CollectionPage {
  resources: ResourceSummary[];
  /** how many pages of `perPage` the matching resources fill; 1 when nothing matches */
  totalPages: number;
  /** the page size the target uses */
  perPage: number;
}

export interface TargetStatus {
  ok: boolean;
  detail: string;
}

/** A file met while walking a resource. */
export interface RemoteFile {
  kind: 'file';
  /** `/`-separated path from the walked resource's parent: a project's files start with the project's title */
  path: string;
  size: number;
  /**
   * The checksums the target keeps for the file among `wanted` (algorithm -> lower-case hex): at least the
   * first of them that it keeps, and others too where they cost nothing more; empty when it keeps none.
   */
  sourceHashes(wanted: readonly string[]): Promise<Record<string, string>>;
  /**
   * The target keeps no checksums of its own (the filesystem): sourceHashes reads the whole file to compute
   * them. A job that reads the bytes anyway takes the source's checksums from those bytes instead of reading
   * the file a second time.
   */
  checksumsOfBytes?: true;
  /**
   * The file's bytes, streamed; never buffered whole. Call it while the walk that yielded the file goes on,
   * or, for a walk given a `workDir`, as long as the job runs.
   */
  open(): Promise<Readable>;
  /**
   * For a file on this machine's disk (the filesystem): its bytes copied into the new file `target` on the
   * hashing threads (copyFile), never through the job's streams, with the digests of the bytes copied for each
   * of `algorithms` and of the file as stored. A writer of local files uses it instead of open() (see
   * IncomingFile.copyInto), and so does a download's zip for an entry laid out ahead (an EntryTarget).
   */
  copyInto?: (target: CopyTarget | EntryTarget, algorithms: readonly string[]) => Promise<CopiedFile>;
}

/** A folder met while walking a resource (so that empty folders survive a download). */
export interface RemoteFolder {
  kind: 'folder';
  path: string;
}

export type DuplicateAction = 'ignore' | 'update';

/** A file on its way into a target. */
export interface IncomingFile {
  size: number;
  /** may be called again when a write is retried; each call streams the file from its start */
  open(): Promise<Readable>;
  /**
   * The checksums among `wanted` (algorithm -> lower-case hex) that the file's source vouches for, got without
   * fetching the file from a remote source: those a source target keeps (RemoteFile.sourceHashes), a bag
   * manifest's, or for a file on this machine's disk computed from it; empty when there are none. A writer
   * that needs a checksum before it sends the bytes (a header, an upload's declaration) asks here first, so
   * that a remote file is not read twice. Absent: nothing is known.
   */
  knownHashes?(wanted: readonly string[]): Promise<Record<string, string>>;
  /**
   * Writes the file's bytes into the new file `target` without streaming them through the job (a source on
   * this machine's disk: RemoteFile.copyInto); the bytes are checked as open()'s would be. A writer that
   * writes local files uses it, when present, instead of open() (writeLocalFile). The digests of the file as
   * stored, read back with `target.readBack`.
   */
  copyInto?(target: CopyTarget): Promise<Record<string, string>>;
}

export interface PutFileResult {
  /** created: new; updated: replaced an existing file whose content differed; ignored: left the existing one */
  outcome: 'created' | 'updated' | 'ignored';
  id: string;
  /** `/`-separated path inside the target, for the metadata file */
  path: string;
  /**
   * Checksums the target reports for the stored file, among the connector's `storedHashAlgorithms` (or else
   * its `hashAlgorithms`), to compare with
   * the bytes sent (docs/behaviour.md#fixity); empty when it reports none.
   */
  hashes: Record<string, string>;
  /**
   * For a writer whose files become visible only at commit: what it needs to include this file in a commit
   * made by a later run of the same job (see ResourceWriter.restage). Plain JSON.
   */
  staged?: unknown;
}

export interface WriterOptions {
  /**
   * The container was made by createProject for this job, so what it holds is not the user's (a new
   * repository's initial commit): the written files replace it.
   */
  newProject: boolean;
  /**
   * The container was made by createProject in this very run of the job, so it holds nothing but what this
   * writer puts: a writer may store a file without first asking the target whether one of that name is
   * there. Not set for a new project that an earlier run made (a resumed run finds its files).
   */
  startsEmpty?: boolean;
  /** what the change is, where the target records one (a commit message) */
  message: string;
  /**
   * Whether some of the files will sit in folders below the container. A target without folders (Zenodo,
   * FigShare) then keeps them together as one BagIt zip; other targets need not look at it.
   */
  nested?: boolean;
  /** a directory of the job's that survives a crash of its worker, for a writer that stages files on disk */
  stagingDir?: string;
}

/**
 * Files on their way into one container. Where the target keeps history, everything put goes into one
 * commit made by `commit`; elsewhere each file is stored as it is put and `commit` has nothing left to do.
 */
export interface ResourceWriter {
  /**
   * Stores a file at `path` (names below the container), making missing folders. An existing file is left
   * alone with `ignore`, and with `update` replaced only when the content differs (docs/behaviour.md#duplicates). Throws
   * ConnectorError 400 for a name or path the target refuses.
   */
  putFile(path: readonly string[], file: IncomingFile, duplicate: DuplicateAction): Promise<PutFileResult>;
  /** Files that an earlier run of the same job put (their `staged` values), to be part of this commit. */
  restage(staged: readonly unknown[]): void;
  /** Makes everything put visible at the target. */
  commit(): Promise<void>;
  /**
   * Takes back what this writer and the earlier runs of the same job (restaged) wrote, for a job that failed
   * or was cancelled, so that the target is left as the job found it: a container made for the job
   * (`newProject`) goes whole; elsewhere created files go and replaced ones get their old content back.
   * A writer whose files become visible only at `commit` has nothing to take back and need not have it; a
   * target that cannot take writes back says so in its documentation.
   */
  abandon?(): Promise<void>;
}

export interface DetailOptions {
  /**
   * Only what names the resource and says what it is (kind, title, dates, `readOnly`): a connector may then
   * leave out its children and the totals of its `extra` where finding them costs a walk of the resource (the
   * filesystem's size and file count of a folder). For the checks before a job's 202 and the job's own start,
   * which walk the resource anyway.
   */
  summary?: boolean;
}

export interface WalkOptions {
  /**
   * A directory of the job's (it survives the walk, and goes when the job ends) where a walk may keep what it
   * had to fetch whole (a packed zip) for a later walk of the same job, and open it again from there.
   */
  workDir?: string;
}

export interface ConnectorSession {
  /** the user name at the target behind the token */
  readonly username: string;
  listResources(query: CollectionQuery): Promise<CollectionPage>;
  /** throws ConnectorError 404 (unknown for this user), 403 (no access) or 410 (gone) */
  getResource(id: string, options?: DetailOptions): Promise<ResourceDetail>;
  /**
   * Every folder and file of a resource (the resource itself first), each folder before its content and a
   * folder's files before its subfolders. A file resource yields just itself. Entries are produced as they
   * are found, so memory does not grow with the tree.
   */
  walk(id: string, options?: WalkOptions): AsyncIterable<RemoteFolder | RemoteFile>;
  /**
   * Makes a new top-level resource; a title the user already has gets a numbered suffix. `claim` (the same
   * for every run of one job, never a secret) is kept with it where the target can, for claimedProject.
   */
  createProject(title: string, claim?: string): Promise<ResourceSummary>;
  /**
   * The project createProject made with `claim`, or null: how a job's run resumed after a crash finds the
   * project its killed run made but had not recorded yet. Absent where the target cannot tell.
   */
  claimedProject?(claim: string): Promise<ResourceSummary | null>;
  /** Starts writing into the container `containerId`; ConnectorError 400 when it is not a container. */
  openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter>;
  /** The target's own keywords of a resource; ConnectorError 400 when that kind of resource has none. */
  keywords(id: string): Promise<string[]>;
  /** Replaces the target's own keywords of a resource and answers them as stored. */
  setKeywords(id: string, keywords: readonly string[]): Promise<string[]>;
}

export interface Connector {
  /**
   * The checksums the target keeps of its files, most useful first: what RemoteFile.sourceHashes and
   * PutFileResult.hashes may hold. Any algorithm of `@app/fixity` (`git-blob-sha1` is a git blob id).
   */
  readonly hashAlgorithms: readonly string[];
  /**
   * The checksums its writer reports of a stored file (PutFileResult.hashes) where they are fewer than
   * `hashAlgorithms`: a target that keeps none computes them by reading the written file back, and then
   * reads it for the first alone, as its RemoteFile.sourceHashes does.
   */
  readonly storedHashAlgorithms?: readonly string[];
  /**
   * Why the target refuses a file or folder name (one path segment), or null when it takes it: the rule its
   * writer applies, so that an upload is checked before the 202.
   */
  nameProblem(name: string): string | null;
  /**
   * Why the target's writer refuses a file of `size` bytes, or null when it takes it; absent where any size
   * goes. An upload is checked with it before its 202, a transfer before it writes anything.
   */
  fileSizeProblem?(size: number): string | null;
  /** checks the token at the target; throws ConnectorError 401 when the target rejects it */
  open(token: string): Promise<ConnectorSession>;
  /** whether the target's upstream answers */
  status(): Promise<TargetStatus>;
}

/**
 * What a connector can do beyond what every connector does, declared with it as an rclone backend declares
 * its `fs.Features`. The conformance suite reads the declaration to decide what to test and what to skip, and
 * checks that the code keeps to it: an optional method is there exactly when its ability is declared
 * (docs/connectors.md#capabilities).
 */
export interface ConnectorCapabilities {
  /** the search filters `listResources` takes; any other answers 400 */
  searchFilters: readonly SearchFilter[];
  /** projects can be made and written into, and keywords set; otherwise each of those answers 400 (CurateND) */
  write: boolean;
  /** a project holds folders, kept as folders; otherwise its files sit side by side (Zenodo, FigShare) */
  folders: boolean;
  /**
   * files written in folders are kept as one BagIt zip in the container, which walks unpack again
   * (`withZippedFolders`)
   */
  zippedFolders: boolean;
  /** the target keeps keywords of its own (tags, topics, subjects): `keywords`, and with `write` `setKeywords` */
  keywords: boolean;
  /**
   * `createProject` keeps the job's claim with the project it makes, and the session's `claimedProject` finds
   * that project again after a crash
   */
  claimedProjects: boolean;
  /** a writer's `abandon` takes back the project made for the job, whole */
  takesBackNewProjects: boolean;
  /** a writer's `abandon` takes back the files a job made in an existing container, a killed run's too */
  takesBackCreatedFiles: boolean;
  /** a file kept in Git LFS is served as its object's content, never as the pointer git holds */
  gitLfs: boolean;
  /** the largest file the writer takes, in bytes (`Connector.fileSizeProblem` tells why); null: any size */
  maxFileBytes: number | null;
}

/** The abilities a connector has or has not (the yes-or-no capabilities). */
export type Ability = {
  [Name in keyof ConnectorCapabilities]: ConnectorCapabilities[Name] extends boolean ? Name : never;
}[keyof ConnectorCapabilities];

/** What a connector's folder exports so that the targets file can name it. */
export interface ConnectorDefinition<Options = unknown> {
  /** the value of `connector` in a targets-file entry */
  readonly name: string;
  /** what it can do beyond what every connector does, declared with `capabilities(...)` */
  readonly capabilities: ConnectorCapabilities;
  /** problems with an entry's `options`, each naming the option; empty when they are usable */
  validateOptions(options: unknown): string[];
  create(options: Options, context: ConnectorContext): Connector;
}

export interface ConnectorContext {
  /** the target entry's name */
  targetName: string;
  /** where relative paths in options resolve (the service's DATA_DIR) */
  dataDir: string;
  /** the directory of the targets file, where paths that ship with it (such as seed data) resolve */
  configDir: string;
  /** the service's default page size, unless the entry's options set `per_page` */
  perPage: number;
  /** timeouts and retries of requests to remote repositories */
  upstream: UpstreamSettings;
  /** how long a status check may wait for the upstream */
  statusTimeoutMs: number;
}
