import { createHash, randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { hashFile } from '@app/fixity';
import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { writeLocalFile } from '../local-file';
import { checkPathNames, portableNameProblem } from '../name-rules';
import { summarize } from './detail';
import { lstatIfPresent } from './disk';
import { encodeId, isReserved } from './ids';
import { locate } from './locate';
import type { FilesystemSession } from './session';

const COMPARE_ALGORITHM = 'sha256';
/**
 * Written files are read back and hashed with these (docs/behaviour.md#fixity): the first checksum the
 * filesystem gives, as for a source file. md5 as well cost 1.4 CPU s a GiB here (npm run bench).
 */
export const STORED_HASHES = [COMPARE_ALGORITHM] as const;

/** The longest name, in bytes, that common filesystems (ext4, XFS, APFS, NTFS in UTF-16 units) hold. */
const MAX_NAME_BYTES = 255;
/** What the names of files being written start with (hidden: reserved names are never listed). */
export const PARTIAL_PREFIX = '.presqt-partial-';

/** A name that is safe as one path segment in a user's folder. */
export function filesystemNameProblem(name: string): string | null {
  if (isReserved(name)) return 'names starting with .presqt are kept for the service';
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return `it is longer than ${MAX_NAME_BYTES} bytes`;
  return portableNameProblem(name);
}

const checkNames = (path: readonly string[]) => checkPathNames(path, filesystemNameProblem, 'this target');

/** `title (n)`, the title shortened (at a character) so that the whole fits the name limit. */
function numberedName(title: string, n: number): string {
  const suffix = ` (${n})`;
  let base = title;
  while (Buffer.byteLength(base + suffix) > MAX_NAME_BYTES) base = [...base].slice(0, -1).join('');
  return `${base.trimEnd()}${suffix}`;
}

/** The mark of the job that made a project, until the job commits (a reserved name: never listed). */
const CLAIM_FILE = '.presqt-claim';

/** A new project `title`, or `title (2)`, ... when taken, marked with the job's claim until the job commits. */
export async function createProject(
  { userDir }: FilesystemSession,
  title: string,
  claim?: string,
): Promise<ResourceSummary> {
  return summarize(makeUniqueDirectory(userDir, title, claim), true);
}

/** The project createProject made with `claim`, until its job commits; null when there is none. */
export async function claimedProject(
  { userDir }: FilesystemSession,
  claim: string,
): Promise<ResourceSummary | null> {
  const name = claimedDirectory(userDir, claim);
  return name === null ? null : summarize(name, true);
}

/** Starts writing into a project or folder; ConnectorError 400 for a file. */
export async function openWriter(
  session: FilesystemSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const { relativePath, absolute, stats } = await locate(session, containerId);
  if (!stats.isDirectory()) throw ConnectorError.notAContainer(containerId);
  return new FilesystemWriter(absolute, relativePath, options.newProject, options.stagingDir);
}

/** Makes a new directory `title` in `parent`, or `title (2)`, `title (3)`, ... when taken. Returns its name. */
function makeUniqueDirectory(parent: string, title: string, claim?: string): string {
  checkNames([title]);
  for (let n = 1; ; n++) {
    const name = n === 1 ? title : numberedName(title, n);
    try {
      // synchronous, so that nothing runs between making the folder and marking it with the claim
      mkdirSync(join(parent, name));
      if (claim !== undefined) writeFileSync(join(parent, name, CLAIM_FILE), claim);
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The project below `parent` marked with `claim` by makeUniqueDirectory; null when none is. */
function claimedDirectory(parent: string, claim: string): string | null {
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    if (!entry.isDirectory() || isReserved(entry.name)) continue;
    const marker = join(parent, entry.name, CLAIM_FILE);
    if (lstatSync(marker, { throwIfNoEntry: false })?.isFile() && readFileSync(marker, 'utf8') === claim)
      return entry.name;
  }
  return null;
}

/** What a write changed, so that a failed or cancelled job can take it back (plain JSON, kept as `staged`). */
/** Paths are relative to the writer's container, so that any worker can take the change back. */
export type WrittenChange =
  | { kind: 'created'; path: string }
  /** the replaced file waits under `backup`, a hidden name in the same folder, until the commit */
  | { kind: 'replaced'; path: string; backup: string };

/**
 * Writes `file` at `segments` below `containerDir`. Folders on the way are created (never through a symlink);
 * the bytes go to a hidden temporary file that is renamed into place only when complete, so nobody ever sees
 * half a file. A file it replaces is kept under a hidden name until the writer commits. The result carries
 * hashes read back from the disk.
 */
export async function putFile(
  containerDir: string,
  segments: readonly string[],
  file: IncomingFile,
  duplicate: DuplicateAction,
  /** the prefix of the job's temporary files, so that a later run of the job finds what a dead one left */
  partialPrefix: string,
): Promise<Omit<PutFileResult, 'id' | 'path'> & { change?: WrittenChange }> {
  checkNames(segments);
  const dir = makeFolders(containerDir, segments);
  const destination = join(dir, segments[segments.length - 1]);
  const existing = lstatIfPresent(destination);
  if (existing && !existing.isFile()) {
    throw new ConnectorError(
      400,
      `'${segments.join('/')}' cannot be written: a folder or link has that name.`,
    );
  }
  if (existing && duplicate === 'ignore')
    return { outcome: 'ignored', hashes: await hashFile(destination, STORED_HASHES) };

  const temporary = join(dir, `${partialPrefix}${randomUUID()}`);
  // the file replaced is hashed while the new one is written; of STORED_HASHES, so that it is hashed once
  const before = existing && hashFile(destination, STORED_HASHES);
  if (before) before.catch(() => undefined);
  let change: WrittenChange;
  let written: Record<string, string>;
  try {
    // a new file is renamed into place by the copy itself, once read back: no round trip more
    written = await writeLocalFile(temporary, file, STORED_HASHES, before ? undefined : destination);
    if (before) {
      // update replaces only a file whose content differs (docs/behaviour.md#duplicates)
      const replaced = await before;
      if (replaced[COMPARE_ALGORITHM] === written[COMPARE_ALGORITHM]) {
        await rm(temporary, { force: true });
        return { outcome: 'ignored', hashes: replaced };
      }
      const backup = join(dir, `.presqt-replaced-${randomUUID()}`);
      await rename(destination, backup);
      change = {
        kind: 'replaced',
        path: relative(containerDir, destination),
        backup: relative(containerDir, backup),
      };
      await rename(temporary, destination);
    } else {
      change = { kind: 'created', path: relative(containerDir, destination) };
    }
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  // renamed, not changed: what was read back of the new file is what the destination holds
  return { outcome: existing ? 'updated' : 'created', hashes: written, change };
}

/**
 * The folders of `segments` below `containerDir` (all but the last), made where missing; the deepest. With
 * synchronous calls, as a listing's (see forEachEntry): a few microseconds each on a local disk, where a round
 * trip through libuv's thread pool costs tens, for every file written.
 */
function makeFolders(containerDir: string, segments: readonly string[]): string {
  let dir = containerDir;
  for (const segment of segments.slice(0, -1)) {
    dir = join(dir, segment);
    let stats = lstatIfPresent(dir);
    if (!stats) {
      try {
        mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      stats = lstatSync(dir);
    }
    if (!stats.isDirectory()) {
      throw new ConnectorError(
        400,
        `'${segments.join('/')}' cannot be written: '${segment}' is not a folder.`,
      );
    }
  }
  return dir;
}

/** Makes the commit final: the files replaced go. */
export async function dropBackups(containerDir: string, changes: readonly WrittenChange[]): Promise<void> {
  for (const change of changes)
    if (change.kind === 'replaced') await rm(join(containerDir, change.backup), { force: true });
}

/**
 * Takes back the changes of a failed or cancelled job, newest first: a created file goes (and the folders it
 * needed, when they are left empty, up to `containerDir`), a replaced file gets its old content back. Changes
 * of different paths are undone several at a time: a cancel reads as ended only once they are, and each
 * waits its turn for the file threads that every running job shares.
 */
export async function undoChanges(containerDir: string, changes: readonly WrittenChange[]): Promise<void> {
  for (const batch of batchesOfDistinctPaths([...changes].reverse(), UNDONE_AT_ONCE))
    await Promise.all(batch.map((change) => undoChange(containerDir, change)));
}

/** Changes undone at once. */
const UNDONE_AT_ONCE = 16;

async function undoChange(containerDir: string, change: WrittenChange): Promise<void> {
  const path = join(containerDir, change.path);
  if (change.kind === 'replaced') {
    await rename(join(containerDir, change.backup), path).catch(() => undefined);
    return;
  }
  await rm(path, { force: true });
  // a sibling's removal may empty a folder after this one found it full: the sibling's walk removes it then
  for (let dir = dirname(path); dir.startsWith(containerDir + sep); dir = dirname(dir)) {
    if (!(await removeIfEmpty(dir))) break;
  }
}

/** `changes` in order, cut into batches of at most `size` in which no path comes twice. */
function batchesOfDistinctPaths(changes: readonly WrittenChange[], size: number): WrittenChange[][] {
  const batches: WrittenChange[][] = [];
  let paths = new Set<string>();
  for (const change of changes) {
    const last = batches.at(-1);
    if (!last || last.length >= size || paths.has(change.path)) {
      batches.push([change]);
      paths = new Set([change.path]);
    } else {
      last.push(change);
      paths.add(change.path);
    }
  }
  return batches;
}

/** Removes a folder that is empty (rmdir refuses any other); whether it went. */
function removeIfEmpty(dir: string): Promise<boolean> {
  return rmdir(dir).then(
    () => true,
    () => false,
  );
}

/**
 * Files going into one folder of a user's, each visible once complete. What it changed is remembered (and
 * staged, for a resumed run), so that a failed or cancelled job takes it back.
 */
class FilesystemWriter implements ResourceWriter {
  private readonly changes: WrittenChange[] = [];
  /** folders written into, where a killed run of the same job may have left temporary files */
  private readonly folders = new Set<string>();
  private readonly partialPrefix: string;

  constructor(
    private readonly containerDir: string,
    /** the container's path inside the user's folder, for ids and metadata paths */
    private readonly containerPath: string,
    /** the container was made for this job: abandoning it removes it whole */
    private readonly newProject: boolean,
    /** the job's own directory: every run of the job names its temporary files after it */
    stagingDir: string | undefined,
  ) {
    const job = stagingDir
      ? createHash('sha256').update(stagingDir).digest('hex').slice(0, 16)
      : randomUUID();
    this.partialPrefix = `${PARTIAL_PREFIX}${job}-`;
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    this.folders.add(join(this.containerDir, ...path.slice(0, -1)));
    const { change, ...stored } = await putFile(this.containerDir, path, file, duplicate, this.partialPrefix);
    if (change) this.changes.push(change);
    const filePath = [this.containerPath, ...path].join('/');
    return { ...stored, id: encodeId(filePath), path: `/${filePath}`, staged: change };
  }

  restage(staged: readonly unknown[]): void {
    for (const change of staged as WrittenChange[]) {
      this.changes.push(change);
      this.folders.add(dirname(join(this.containerDir, change.path)));
    }
  }

  /** The replaced files go, and what a killed run of the job left half-written. */
  async commit(): Promise<void> {
    await dropBackups(this.containerDir, this.changes);
    await this.removePartials();
    // the project is the job's own no longer, but the user's
    if (this.newProject) await rm(join(this.containerDir, CLAIM_FILE), { force: true });
  }

  /**
   * Also after a commit (a job cancelled just as it finished): created files go then, but replaced ones keep
   * their new content, the old one being gone.
   */
  async abandon(): Promise<void> {
    if (this.newProject) await rm(this.containerDir, { recursive: true, force: true });
    else await undoChanges(this.containerDir, this.changes);
    await this.removePartials();
    this.changes.length = 0;
  }

  private async removePartials(): Promise<void> {
    for (const folder of this.folders) {
      const names = await readdir(folder).catch(() => []);
      for (const name of names.filter((entry) => entry.startsWith(this.partialPrefix)))
        await rm(join(folder, name), { force: true });
    }
  }
}
