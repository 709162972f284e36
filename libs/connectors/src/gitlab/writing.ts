import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import type { GitlabApi } from './api';
import { commitBatches, commitBody, type CommitFile } from './commit-body';
import { projectSummary } from './detail';
import { heldChecksums, heldFile, holds, isBlobOf, type HeldFile } from './held-files';
import { encodeId, joinPath, nameOf, parentOf } from './ids';
import { locate, type Located } from './locate';
import { numberedProjectName } from './project-name';
import type { GitlabSession } from './session';
import { stageFile, type StagedBytes } from './staging';

/** How many numbered names `createProject` tries before giving up. */
const MAX_NAME_ATTEMPTS = 100;

/** A file put and not yet committed: the writer's `staged` value (plain JSON). */
export type StagedFile = CommitFile & StagedBytes;

interface WriterSettings {
  message: string;
  /** the job's staging directory, surviving a crash of its worker; else the writer makes a temporary one */
  stagingDir?: string;
  /** the file bytes one commit takes at most */
  batchBytes: number;
}

/** A new project named after the title, numbered while the name is taken. */
export async function createProject(
  { api, visibility }: GitlabSession,
  title: string,
): Promise<ResourceSummary> {
  for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
    const { name, path } = numberedProjectName(title, attempt);
    const project = await api.createProject({ name, path, visibility, initialize_with_readme: false });
    if (project) return projectSummary(project);
  }
  throw new ConnectorError(400, `Every name tried for a project titled '${title}' is taken at GitLab.`);
}

/** Starts writing into a project or folder; ConnectorError 400 for a file. */
export async function openWriter(
  { api, batchBytes }: GitlabSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const container = await locate(api, containerId);
  if (container.entry?.type === 'blob') throw ConnectorError.notAContainer(containerId);
  return new GitlabWriter(api, container, {
    message: options.message,
    stagingDir: options.stagingDir,
    batchBytes,
  });
}

/** A name git and GitLab take as one path segment; ConnectorError 400 otherwise. */
function checkedName(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\0]/.test(name) || name.toLowerCase() === '.git')
    throw new ConnectorError(400, `'${name}' cannot be used as a file or folder name at GitLab.`);
  return name;
}

function isStagedFile(value: unknown): value is StagedFile {
  const staged = value as Partial<StagedFile> | null;
  return (
    typeof staged === 'object' &&
    staged !== null &&
    (staged.action === 'create' || staged.action === 'update') &&
    typeof staged.path === 'string' &&
    typeof staged.file === 'string' &&
    typeof staged.size === 'number' &&
    typeof staged.blobId === 'string' &&
    typeof staged.sha256 === 'string'
  );
}

/**
 * Files on their way into a GitLab folder. Each `putFile` stages the file on disk (hashing it as it goes);
 * `commit` sends them all in one commit (several when they exceed the batch size) through the commits API,
 * then checks that the blob ids GitLab holds are those of the bytes sent, or of the LFS pointers GitLab
 * commits in their place where the repository's `.gitattributes` sends a path to Git LFS.
 */
class GitlabWriter implements ResourceWriter {
  private readonly staged = new Map<string, StagedFile>();
  /** staged by an earlier run of the job, whose commit may or may not have happened */
  private readonly restaged = new Set<string>();
  private stagingDir: Promise<string> | undefined;
  /** nothing exists in an empty repository, so no file needs looking up until a commit is made */
  private emptyRepository: boolean;

  constructor(
    private readonly api: GitlabApi,
    private readonly container: Located,
    private readonly settings: WriterSettings,
  ) {
    this.emptyRepository = container.project.empty_repo === true;
  }

  private get projectId(): string {
    return this.container.ref.projectId;
  }

  async putFile(
    names: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    if (names.length === 0) throw new ConnectorError(400, 'A file needs a name.');
    const path = joinPath(this.container.ref.path, ...names.map(checkedName));
    const result = (
      outcome: PutFileResult['outcome'],
      hashes: Record<string, string>,
      staged?: StagedFile,
    ) => ({
      outcome,
      id: encodeId({ projectId: this.projectId, path }),
      path: `/${this.container.project.name}/${path}`,
      hashes,
      staged,
    });
    const pending = this.staged.get(path);
    // what an earlier put staged counts as held: its bytes are what the commit will hold
    const existing: HeldFile | null = pending ?? (await this.held(path));
    // ignore: the incoming bytes are not even read
    if (existing && duplicate === 'ignore') return result('ignored', heldChecksums(existing));
    const bytes = await stageFile(await this.stagingDirectory(), file);
    if (existing && holds(existing, bytes)) {
      await rm(bytes.file, { force: true });
      return result('ignored', heldChecksums(existing));
    }
    if (pending) await rm(pending.file, { force: true });
    const staged: StagedFile = {
      action: pending?.action ?? (existing ? 'update' : 'create'),
      path,
      ...bytes,
    };
    this.staged.set(path, staged);
    return result(existing ? 'updated' : 'created', heldChecksums(bytes), staged);
  }

  /** The file the branch holds at a path, an LFS pointer resolved; none in an empty repository. */
  private held(path: string): Promise<HeldFile | null> {
    if (this.emptyRepository) return Promise.resolve(null);
    return heldFile(this.api, { projectId: this.projectId, path, ref: this.container.branch });
  }

  restage(values: readonly unknown[]): void {
    for (const value of values) {
      if (!isStagedFile(value)) throw new Error('A staged GitLab file from an earlier run is malformed.');
      if (this.staged.has(value.path)) continue;
      this.staged.set(value.path, value);
      this.restaged.add(value.path);
    }
  }

  async commit(): Promise<void> {
    await this.settleRestaged();
    const files = [...this.staged.values()];
    for (const batch of commitBatches(files, this.settings.batchBytes)) {
      const body = commitBody(this.container.branch, this.settings.message, batch);
      const commit = await this.api.createCommit(this.projectId, body, this.container.id);
      this.emptyRepository = false;
      await this.verify(batch, commit.id);
      for (const file of batch) this.staged.delete(file.path);
      await Promise.all(batch.map((file) => rm(file.file, { force: true })));
    }
    if (this.stagingDir && !this.settings.stagingDir) {
      await rm(await this.stagingDir, { recursive: true, force: true });
      this.stagingDir = undefined;
    }
  }

  /**
   * An earlier run's commit may have happened before its worker died: each file it staged is committed
   * only if GitLab does not already hold those bytes, created or updated as GitLab holds it now.
   */
  private async settleRestaged(): Promise<void> {
    if (this.emptyRepository) return;
    for (const path of this.restaged) {
      const staged = this.staged.get(path);
      if (!staged) continue;
      const held = await this.held(path);
      if (held && holds(held, staged)) {
        this.staged.delete(path);
        await rm(staged.file, { force: true });
      } else staged.action = held ? 'update' : 'create';
    }
    this.restaged.clear();
  }

  /** Compares the blob ids of the commit's tree with those of the bytes sent, folder by folder. */
  private async verify(files: readonly StagedFile[], sha: string): Promise<void> {
    const byFolder = new Map<string, Map<string, StagedFile>>();
    for (const file of files) {
      const folder = parentOf(file.path);
      if (!byFolder.has(folder)) byFolder.set(folder, new Map());
      byFolder.get(folder)!.set(nameOf(file.path), file);
    }
    for (const [folder, expected] of byFolder) {
      const differs = (file: StagedFile) =>
        new ConnectorError(502, `${this.api.name} does not hold the bytes sent for ${file.path}.`);
      for await (const page of this.api.tree(this.projectId, folder, sha, this.container.id)) {
        for (const entry of page) {
          const file = expected.get(entry.name);
          if (!file) continue;
          if (entry.type !== 'blob' || !isBlobOf(entry.id, file)) throw differs(file);
          expected.delete(entry.name);
        }
        if (expected.size === 0) break;
      }
      const [missing] = expected.values();
      if (missing) throw differs(missing);
    }
  }

  private stagingDirectory(): Promise<string> {
    this.stagingDir ??= this.settings.stagingDir
      ? mkdir(this.settings.stagingDir, { recursive: true }).then(() => this.settings.stagingDir!)
      : mkdtemp(join(tmpdir(), 'presqt-gitlab-'));
    return this.stagingDir;
  }
}
