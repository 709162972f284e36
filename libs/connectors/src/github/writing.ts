import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { meter } from '@app/common';
import { GIT_BLOB_SHA1 } from '@app/fixity';
import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import type { LfsPointer } from '../git-lfs';
import {
  FILE_MODE,
  gitFileChecksums,
  type BranchHead,
  type FileEntry,
  type GitDatabase,
  type StagedFile,
  type TreeEntry,
} from './git-database';
import { repositorySummary } from './detail';
import { resourceId } from './ids';
import { locate } from './locate';
import { numberedName, repositoryName } from './names';
import type { GitHubSession } from './session';
import { checkPathNames, gitNameProblem } from '../name-rules';

/** How many numbered names (`Title-2`, ...) are tried for a title the user already has. */
const NUMBERED_NAMES = 100;
/** Files a created tree takes at a time; larger commits chain trees by `base_tree`. */
const TREE_CHUNK = 500;
/** Attempts at moving the branch when someone else moves it meanwhile. */
const COMMIT_ATTEMPTS = 3;
/** Looks at a new repository's head: GitHub may still be making its first commit (answering 409). */
const NEW_REPOSITORY_LOOKS = 5;
/**
 * GitHub refuses files larger than 100 MiB in a repository, and its git data API takes blobs up to that
 * size (https://docs.github.com/en/repositories/working-with-files/managing-large-files/about-large-files-on-github).
 */
export const MAX_FILE_BYTES = 100 << 20;

/** Why GitHub's writer refuses a file of `size` bytes (Connector.fileSizeProblem), or null. */
export function fileSizeProblem(size: number): string | null {
  if (size <= MAX_FILE_BYTES) return null;
  const mib = (size / 2 ** 20).toFixed(1);
  return `it is ${mib} MiB, and GitHub takes files of at most 100 MiB through its API`;
}

/** What the writer or the branch holds at a path, as a duplicate is compared with it. */
interface Existing {
  sha: string;
  mode: string;
  /** the pointer the blob is, for a file stored in Git LFS */
  lfs?: LfsPointer;
  /** what GitHub vouches for of the content */
  checksums: Record<string, string>;
}

/** A new repository with a first commit (the git data API needs one), its title numbered when taken. */
export async function createProject(
  { api, publicRepositories }: GitHubSession,
  title: string,
): Promise<ResourceSummary> {
  const name = repositoryName(title);
  for (let n = 1; n <= NUMBERED_NAMES; n++) {
    const created = await api.createRepository(numberedName(name, n), !publicRepositories);
    if (created) return repositorySummary(created);
  }
  throw new ConnectorError(
    400,
    `The user already has repositories named ${name} to ${numberedName(name, NUMBERED_NAMES)}.`,
  );
}

/** Starts writing into a repository or folder; ConnectorError 400 for a file. */
export async function openWriter(
  { api, retryBaseMs }: GitHubSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const located = await locate(api, containerId);
  if (located.entry?.kind === 'file') throw ConnectorError.notAContainer(containerId);
  let head = located.head;
  for (let look = 1; head === null && options.newProject && look < NEW_REPOSITORY_LOOKS; look++) {
    await sleep(retryBaseMs * 2 ** look);
    head = await located.database.head(containerId);
  }
  return new GitHubWriter(located.database, located.path, head, options);
}

function checkedNames(path: readonly string[]): string[] {
  checkPathNames(path, gitNameProblem, 'GitHub');
  return [...path];
}

function isStagedFile(value: unknown): value is StagedFile {
  const staged = value as Partial<StagedFile> | null;
  return (
    typeof staged?.path === 'string' && typeof staged.sha === 'string' && typeof staged.mode === 'string'
  );
}

/**
 * Files written into one repository as a single commit on its default branch: each file goes up as a blob
 * when it is put; `commit` makes the tree(s) and the commit and moves the branch. What the branch already
 * holds is learned one directory at a time, only where files are put.
 */
class GitHubWriter implements ResourceWriter {
  private readonly staged = new Map<string, StagedFile>();
  /** every folder the staged files sit in */
  private readonly stagedFolders = new Set<string>();
  private readonly branch: BranchContents;
  /** the start of an empty repository, which the other files wait for */
  private starting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly database: GitDatabase,
    /** where the container is in the repository */
    private readonly base: string[],
    private head: BranchHead | null,
    private readonly options: WriterOptions,
  ) {
    // a repository made for this job holds nothing of the user's: its files are replaced, never compared
    this.branch = new BranchContents(database, options.newProject ? null : (head?.treeUrl ?? null));
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    const names = [...this.base, ...checkedNames(path)];
    const key = names.join('/');
    const tooLarge = fileSizeProblem(file.size);
    if (tooLarge) throw conflict(key, tooLarge);
    this.refuseStagedConflicts(names);
    const existing = await this.existing(key, names);
    if (existing && duplicate === 'ignore') return this.result('ignored', names, existing.checksums);
    if (this.head === null) {
      const started = await this.startRepository(names, file);
      if (started) return started;
    }
    // the same content as an LFS object is told by its sha256, taken as the blob is sent
    const sent = existing?.lfs ? hashedWhileSent(file) : null;
    const sha = await this.database.createBlob(sent?.file ?? file);
    const same = existing?.lfs ? sent?.sha256() === existing.lfs.oid : existing?.sha === sha;
    if (existing && same) return this.result('ignored', names, existing.checksums);
    return this.stage(
      { path: key, sha, mode: existing?.mode ?? FILE_MODE },
      existing ? 'updated' : 'created',
    );
  }

  /** The file staged at a path, else the branch's, an LFS pointer made out. */
  private async existing(key: string, names: string[]): Promise<Existing | undefined> {
    const staged = this.staged.get(key);
    if (staged) return { ...staged, checksums: { [GIT_BLOB_SHA1]: staged.sha } };
    const entry = await this.branch.fileAt(names);
    if (!entry) return undefined;
    const file = await this.database.resolve(entry);
    return { sha: entry.sha, mode: entry.mode, lfs: file.lfs, checksums: gitFileChecksums(file) };
  }

  restage(staged: readonly unknown[]): void {
    for (const file of staged) {
      if (!isStagedFile(file)) throw new Error('A staged GitHub file lacks its path, sha or mode.');
      this.remember(file);
    }
  }

  async commit(): Promise<void> {
    if (this.staged.size === 0) return;
    for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
      // the head as it is now: the branch may have moved since the writer opened
      const head = await this.database.head();
      if (head === null)
        throw new ConnectorError(
          409,
          `${this.database.repository.full_name} has no commit to add the files to.`,
        );
      const tree = await this.buildTree(this.options.newProject ? undefined : head.treeSha);
      // nothing new to record: every staged file is already there (the first file of an empty repository)
      if (tree === head.treeSha) return;
      const commit = await this.database.createCommit(this.options.message, tree, [head.commitSha]);
      if (await this.database.moveBranch(commit)) return;
    }
    throw new ConnectorError(
      409,
      `The default branch of ${this.database.repository.full_name} kept moving while the files were committed.`,
    );
  }

  /** The tree of the commit: the base with every staged file put in, a chunk of files per request. */
  private async buildTree(base: string | undefined): Promise<string> {
    const files = [...this.staged.values()];
    let tree = base;
    for (let start = 0; start < files.length; start += TREE_CHUNK)
      tree = await this.database.createTree(files.slice(start, start + TREE_CHUNK), tree);
    if (tree === undefined) throw new Error('a tree is built from at least one file');
    return tree;
  }

  /**
   * The first file of an empty repository makes its first commit through the contents API (the git data API
   * refuses an empty repository); files put meanwhile wait for it, then go the usual way. Null when another
   * file has started the repository.
   */
  private startRepository(names: string[], file: IncomingFile): Promise<PutFileResult | null> {
    const started = this.starting.then(async () => {
      if (this.head !== null) return null;
      const key = names.join('/');
      const first = await this.database.createFirstFile(key, file, this.options.message);
      this.head = first.head;
      return this.stage({ path: key, sha: first.blobSha, mode: FILE_MODE }, 'created');
    });
    this.starting = started.catch(() => undefined);
    return started;
  }

  private stage(file: StagedFile, outcome: 'created' | 'updated'): PutFileResult {
    this.remember(file);
    return { ...this.result(outcome, file.path.split('/'), { [GIT_BLOB_SHA1]: file.sha }), staged: file };
  }

  private remember(file: StagedFile): void {
    this.staged.set(file.path, file);
    const names = file.path.split('/');
    for (let depth = 1; depth < names.length; depth++)
      this.stagedFolders.add(names.slice(0, depth).join('/'));
  }

  /** A path through a file staged here, or onto a folder of staged files, cannot be written. */
  private refuseStagedConflicts(names: string[]): void {
    const key = names.join('/');
    if (this.stagedFolders.has(key)) throw conflict(key, 'a folder has that name');
    for (let depth = 1; depth < names.length; depth++) {
      const folder = names.slice(0, depth).join('/');
      if (this.staged.has(folder)) throw conflict(key, `'${folder}' is a file`);
    }
  }

  private result(
    outcome: PutFileResult['outcome'],
    names: string[],
    hashes: Record<string, string>,
  ): PutFileResult {
    const repository = this.database.repository;
    return {
      outcome,
      id: resourceId(repository.id, names),
      path: `/${repository.name}/${names.join('/')}`,
      hashes,
    };
  }
}

/** The file as it is sent, and the sha256 of what its last opening streamed (a retried send opens it anew). */
function hashedWhileSent(file: IncomingFile): { file: IncomingFile; sha256: () => string } {
  let hash: Hash | null = null;
  return {
    file: {
      size: file.size,
      open: async () => {
        const opened = createHash('sha256');
        hash = opened;
        return meter(await file.open(), (chunk) => void opened.update(chunk));
      },
    },
    sha256: () => hash?.digest('hex') ?? '',
  };
}

function conflict(path: string, reason: string): ConnectorError {
  return new ConnectorError(400, `'${path}' cannot be written: ${reason}.`);
}

/** What a branch holds at the paths asked about, one directory listing fetched (once) per folder met. */
class BranchContents {
  private readonly listings = new Map<string, Promise<Map<string, TreeEntry>>>();

  constructor(
    private readonly database: GitDatabase,
    /** the branch's root tree; null when it is to be taken as empty */
    private readonly rootTreeUrl: string | null,
  ) {}

  /** The file at a path, if any; ConnectorError 400 when the path runs through a file or names a folder. */
  async fileAt(names: string[]): Promise<FileEntry | undefined> {
    let treeUrl = this.rootTreeUrl;
    for (const [depth, name] of names.entries()) {
      if (treeUrl === null) return undefined;
      const entry = (await this.listing(treeUrl)).get(name);
      if (!entry) return undefined;
      const path = names.join('/');
      if (depth === names.length - 1) {
        if (entry.kind !== 'file') throw conflict(path, 'a folder or link has that name');
        return entry;
      }
      if (entry.kind !== 'folder')
        throw conflict(path, `'${names.slice(0, depth + 1).join('/')}' is not a folder`);
      treeUrl = entry.url;
    }
    return undefined;
  }

  private listing(treeUrl: string): Promise<Map<string, TreeEntry>> {
    let listing = this.listings.get(treeUrl);
    if (!listing) {
      listing = this.database
        .listing(treeUrl)
        .then((entries) => new Map(entries.map((entry) => [entry.name, entry])));
      // a failed look is not remembered, so that a retried file looks again
      listing.catch(() => this.listings.delete(treeUrl));
      this.listings.set(treeUrl, listing);
    }
    return listing;
  }
}
