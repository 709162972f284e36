import { CommanderError } from 'commander';
import { CliError, EXIT, isAbort } from './errors';
import { abortOnInterrupt } from './interrupt';
import { Output } from './output';
import { buildProgram } from './program';
import type { GlobalOptions } from './session';

/** `presqt`: runs one command and exits with its status (docs/cli.md). */
async function main(): Promise<number> {
  const signal = abortOnInterrupt();
  const program = buildProgram(signal);
  try {
    await program.parseAsync(process.argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    // commander has printed its own message (or the help, or the version)
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const failure =
      error instanceof CliError
        ? error
        : isAbort(error) && signal.aborted
          ? new CliError('Interrupted.', EXIT.interrupted)
          : new CliError(`Unexpected failure: ${(error as Error).message}`);
    new Output(program.opts<GlobalOptions>().json === true).error(failure);
    return failure.exitCode;
  }
}

void main().then((status) => process.exit(status));
