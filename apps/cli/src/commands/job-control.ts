import { Argument, type Command } from 'commander';
import { JOB_KINDS, type JobKind } from '@app/job-kinds';
import { CliError, EXIT } from '../errors';
import { jobHeaders, requestCancel, requestStatus, statusLines } from '../job';
import type { Session } from '../session';

const kindArgument = () => new Argument('<job>', 'the kind of job').choices(JOB_KINDS);
const targetsArgument = () =>
  new Argument(
    '<targets...>',
    "the job's target: a download's source, an upload's destination, a transfer's source and destination",
  );

export function registerJobControl(program: Command, session: (command: Command) => Session): void {
  program
    .command('status')
    .description("show the user's latest job of a kind: its progress, or how it ended")
    .addArgument(kindArgument())
    .addArgument(targetsArgument())
    .action(async (kind: JobKind, targets: string[], _options: unknown, command: Command) =>
      showStatus(session(command), kind, targets),
    );
  program
    .command('cancel')
    .description("cancel the user's running job of a kind")
    .addArgument(kindArgument())
    .addArgument(targetsArgument())
    .action(async (kind: JobKind, targets: string[], _options: unknown, command: Command) =>
      cancel(session(command), kind, targets),
    );
}

async function showStatus(session: Session, kind: JobKind, targets: string[]): Promise<void> {
  const headers = await jobHeaders(session, kind, targets);
  const body = await requestStatus(session, kind, headers);
  session.output.result(body, () => statusLines(kind, body));
  if (body.status === 'failed' || body.status === 'cancelled') process.exitCode = EXIT.jobFailed;
}

async function cancel(session: Session, kind: JobKind, targets: string[]): Promise<void> {
  const headers = await jobHeaders(session, kind, targets);
  const { status, body } = await requestCancel(session, kind, headers, session.signal);
  if (status === 406)
    throw new CliError(`The ${kind} had already ended (${body.status}): ${body.message}`, EXIT.failure, {
      job: body,
    });
  session.output.result(body, () => [body.message]);
}
