import { Argument, type Command } from 'commander';
import { JOB_KINDS, type JobKind } from '@app/job-kinds';
import { CliError, EXIT } from '../errors';
import { JOB_TITLES, jobHeaders, progressDetail, statusPath, type JobStatus } from '../job';
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

function checkTargets(kind: JobKind, targets: string[]): void {
  const needed = kind === 'transfer' ? 2 : 1;
  if (targets.length !== needed)
    throw new CliError(
      kind === 'transfer'
        ? 'A transfer is found by its source and destination targets.'
        : `A ${kind} is found by its one target.`,
      EXIT.usage,
    );
}

async function showStatus(session: Session, kind: JobKind, targets: string[]): Promise<void> {
  checkTargets(kind, targets);
  const headers = await jobHeaders(session, kind, targets);
  const { body } = await session.client.json<JobStatus>(statusPath(kind), {
    headers,
    expect: [200, 202, 500],
    signal: session.signal,
  });
  session.output.result(body, () => [
    `${JOB_TITLES[kind]}: ${body.status.replace('_', ' ')}, ${body.job_percentage}%`,
    progressDetail(body),
  ]);
  if (body.status === 'failed' || body.status === 'cancelled') process.exitCode = EXIT.jobFailed;
}

async function cancel(session: Session, kind: JobKind, targets: string[]): Promise<void> {
  checkTargets(kind, targets);
  const headers = await jobHeaders(session, kind, targets);
  const { status, body } = await session.client.json<JobStatus>(`/api_v1/job_status/${kind}/`, {
    method: 'PATCH',
    headers,
    expect: [200, 406],
    signal: session.signal,
  });
  if (status === 406)
    throw new CliError(`The ${kind} had already ended (${body.status}): ${body.message}`, EXIT.failure, {
      job: body,
    });
  session.output.result(body, () => [body.message]);
}
