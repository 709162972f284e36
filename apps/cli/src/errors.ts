/** The exit statuses of every command (docs/cli.md#exit-status). */
export const EXIT = {
  ok: 0,
  /** the service refused a request, could not be reached, or a local file could not be read or written */
  failure: 1,
  /** the command line itself was wrong */
  usage: 2,
  /** the job ran and failed, or someone else cancelled it */
  jobFailed: 3,
  /** the job finished, but some files failed their fixity check */
  fixity: 4,
  /** Ctrl-C: the running job was cancelled */
  interrupted: 130,
} as const;

/** A failure the user is told about in one clear line; `details` join it in `--json` output. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The error a request or a wait throws when Ctrl-C aborted it. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'RequestAbortedError');
}
