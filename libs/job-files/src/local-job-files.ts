import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { openFileBody, type FileBody } from './file-body';
import { JobFiles, type JobRun, type RunToKeep } from './job-files';
import { directories, removeRunsExcept } from './run-dirs';

/**
 * Job files in this host's data directory, `<root>/<kind>/<ticket>/<run>/<name>`: the same directory a
 * worker runs the job in, so keeping a file there is a rename. API and workers must share the disk.
 */
export class LocalJobFiles extends JobFiles {
  readonly inWorkDir = true;

  constructor(
    private readonly root: string,
    /** a reverse proxy's internal location serving `root` (JOB_FILES_ACCEL_REDIRECT) */
    private readonly accelLocation?: string,
  ) {
    super();
  }

  async keep(run: JobRun, name: string, source: string): Promise<void> {
    const path = this.path(run, name);
    if (resolve(source) === path) return;
    await mkdir(dirname(path), { recursive: true });
    await rename(source, path);
  }

  async size(run: JobRun, name: string): Promise<number | null> {
    return stat(this.path(run, name)).then(
      (stats) => (stats.isFile() ? stats.size : null),
      () => null,
    );
  }

  async open(run: JobRun, name: string): Promise<FileBody> {
    return openFileBody(this.path(run, name));
  }

  async fetch(run: JobRun, name: string, target: string): Promise<void> {
    const path = this.path(run, name);
    if (resolve(target) !== path) await copyFile(path, target);
  }

  async url(): Promise<null> {
    return null;
  }

  override accelPath(run: JobRun, name: string): string | null {
    if (this.accelLocation === undefined) return null;
    const parts = [run.kind, run.ticket, run.runId, name].map(encodeURIComponent);
    return `${this.accelLocation}/${parts.join('/')}`;
  }

  async removeRun(run: JobRun): Promise<void> {
    await rm(this.runDir(run), { recursive: true, force: true });
  }

  async removeRunsExcept(kind: string, ticket: string, keep: RunToKeep): Promise<void> {
    await removeRunsExcept(join(this.root, kind, ticket), keep);
  }

  async *tickets(kind: string): AsyncIterable<string> {
    yield* await directories(join(this.root, kind));
  }

  private runDir(run: JobRun): string {
    return join(this.root, run.kind, run.ticket, run.runId);
  }

  private path(run: JobRun, name: string): string {
    return join(this.runDir(run), name);
  }
}
