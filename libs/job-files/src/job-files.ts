import type { FileBody } from './file-body';

/** One run of a job: its files are kept under its kind, the user's ticket and the run's id. */
export interface JobRun {
  kind: string;
  ticket: string;
  runId: string;
}

/**
 * Where the files one side of a job leaves for the other are kept: a download's finished zip (the worker
 * writes it, the API serves it) and an upload's package (the API receives it, the worker reads it). Every API
 * process and worker of a deployment must see the same store; a run's files live exactly as long as its
 * record (docs/behaviour.md#job-files).
 */
/** The run whose files stay, or how to ask for it once the runs are listed (see `removeRunsExcept` of run-dirs). */
export type RunToKeep = string | undefined | (() => Promise<string | undefined>);

export abstract class JobFiles {
  /**
   * Whether a run's kept files are in the directory its worker runs it in (the local store): that directory
   * then stays as long as the run's record. Otherwise a worker's directory is scratch, removed when the run ends.
   */
  abstract readonly inWorkDir: boolean;

  /** Makes the local file `source` the run's file `name`; `source` is gone afterwards. */
  abstract keep(run: JobRun, name: string, source: string): Promise<void>;

  /** The size of the run's file `name`; null when there is none (never kept, or removed). */
  abstract size(run: JobRun, name: string): Promise<number | null>;

  /** The run's file `name`, opened for sending; rejects when there is none. */
  abstract open(run: JobRun, name: string): Promise<FileBody>;

  /** Makes the run's file `name` readable at the local path `target`, unless it is there already. */
  abstract fetch(run: JobRun, name: string, target: string): Promise<void>;

  /**
   * A URL that answers the file to anyone holding it, for `seconds`, as an attachment named `filename`;
   * null when this store has no such URLs.
   */
  abstract url(run: JobRun, name: string, filename: string, seconds: number): Promise<string | null>;

  /**
   * Where a reverse proxy in front of the API reads the file from, for an `X-Accel-Redirect` answer that has
   * the proxy send it; null when the store has no such location (JOB_FILES_ACCEL_REDIRECT unset, or S3).
   */
  accelPath(_run: JobRun, _name: string): string | null {
    return null;
  }

  /** Removes every file of the run. */
  abstract removeRun(run: JobRun): Promise<void>;

  /** Removes the files of every run of one user's jobs of `kind` except run `keep`. */
  abstract removeRunsExcept(kind: string, ticket: string, keep: RunToKeep): Promise<void>;

  /** The tickets that have files of jobs of `kind`. */
  abstract tickets(kind: string): AsyncIterable<string>;

  /** Lets go of connections when the process stops. */
  async close(): Promise<void> {}
}
