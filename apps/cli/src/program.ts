import { Command, Option } from 'commander';
import { version } from '../../../package.json';
import { registerBrowsing } from './commands/browse';
import { registerDownload } from './commands/download';
import { registerJobControl } from './commands/job-control';
import { registerTransfer } from './commands/transfer';
import { registerUpload } from './commands/upload';
import { Session } from './session';
import { defaultTokensFile } from './tokens';

const MORE_HELP = `
Tokens: each target's token comes from PRESQT_TOKEN_<TARGET> (e.g. PRESQT_TOKEN_LAB, PRESQT_TOKEN_CURATE_ND),
else from the tokens file, a JSON object {"<target>": "<token>", ...}. No token is ever printed.

Jobs (download, upload, transfer) show a progress bar on a terminal; Ctrl-C cancels the job.

Exit status: 0 done; 1 the service refused or could not be reached, or a local file failed; 2 a wrong command
line; 3 the job failed; 4 the job finished but some files failed their fixity check; 130 Ctrl-C (job cancelled).

Examples:
  presqt targets
  presqt ls lab --search soil
  presqt download lab:U29pbCBNb2lzdHVyZSBTdHVkeQ -o soil.zip
  presqt upload ./MyProject archive
  presqt transfer lab:U29pbCBNb2lzdHVyZSBTdHVkeQ archive --keyword "field work"`;

/** The `presqt` command and its subcommands; Ctrl-C aborts `signal`. Errors are thrown, not exited on. */
export function buildProgram(signal: AbortSignal): Command {
  const program = new Command('presqt')
    .description('List, download, upload and transfer research data through a PresQT service.')
    .version(version)
    .addOption(
      new Option('--server <url>', 'the PresQT service')
        .env('PRESQT_SERVER')
        .default('http://127.0.0.1:8000'),
    )
    .addOption(
      new Option('--tokens <file>', 'the tokens file').env('PRESQT_TOKENS_FILE').default(defaultTokensFile()),
    )
    .option('--json', 'print results and errors as JSON, for scripts')
    .option('--no-progress', 'no progress bars, even on a terminal')
    .addHelpText('after', MORE_HELP)
    .showHelpAfterError('(presqt --help lists the commands and options)')
    // set before the subcommands, which inherit it
    .exitOverride();
  const session = (command: Command) => Session.of(command, signal);
  registerBrowsing(program, session);
  registerDownload(program, session);
  registerUpload(program, session);
  registerTransfer(program, session);
  registerJobControl(program, session);
  return program;
}
