import { Test } from '@nestjs/testing';
import {
  JOB_KIND_DESCRIPTIONS,
  JOB_KINDS,
  jobStatusPath,
  jsonStatusPath,
  tokenHeaders,
  type JobKind,
  type JobStatusBody,
} from '@app/job-kinds';
import { jobTicket, ticketFor } from '@app/jobs';
import { CliError, EXIT } from '../../apps/cli/src/errors';
import { jobHeaders, statusLines } from '../../apps/cli/src/job';
import type { Session } from '../../apps/cli/src/session';
import { JOB_HANDLERS, type JobHandler } from '../../apps/worker/src/jobs/job-handler';
import { JOB_HANDLER_PROVIDERS } from '../../apps/worker/src/jobs/job-handlers';

/** A session whose token for a target is `token-of-<target>`. */
const session = {
  tokenFor: (target: string) => Promise.resolve(`token-of-${target}`),
} as unknown as Session;

const inProgress: JobStatusBody = {
  status: 'in_progress',
  status_code: null,
  message: 'Download is being processed on the server.',
  job_percentage: 40,
  files_total: 4,
  files_finished: 1,
};

describe('each job kind, as the CLI and the worker read its description', () => {
  describe.each(JOB_KINDS)('%s', (kind: JobKind) => {
    const description = JOB_KIND_DESCRIPTIONS[kind];
    const targets = description.tokens.map((role) => `${role}-target`);

    it('is found by the CLI with a token for each target the description names, in its order', async () => {
      const headers = await jobHeaders(session, kind, targets);
      expect(Object.entries(headers)).toEqual(
        tokenHeaders(kind).map((header, i) => [header, `token-of-${targets[i]}`]),
      );
    });

    it('is refused by the CLI with another number of targets, as a usage error', async () => {
      const error = await jobHeaders(session, kind, [...targets, 'one-more']).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.usage);
    });

    it("has its status shown by the CLI under the description's title", () => {
      expect(statusLines(kind, inProgress)[0]).toBe(`${description.title}: in progress, 40%`);
    });

    it('has one ticket, from its tokens in the order of the description', () => {
      const tokens = { source: 'source-token', destination: 'destination-token' };
      expect(jobTicket('secret', kind, tokens)).toBe(
        ticketFor('secret', ...description.tokens.map((role) => tokens[role])),
      );
    });
  });

  it('reads as the CLI always wrote it, at the paths of api.md', async () => {
    expect(statusLines('download', inProgress)).toEqual([
      'Download: in progress, 40%',
      '1/4 files | Download is being processed on the server.',
    ]);
    expect(statusLines('transfer', { ...inProgress, status: 'cancelled' })[0]).toBe(
      'Transfer: cancelled, 40%',
    );
    expect(await jobHeaders(session, 'transfer', ['lab', 'archive'])).toEqual({
      'presqt-source-token': 'token-of-lab',
      'presqt-destination-token': 'token-of-archive',
    });
    await expect(jobHeaders(session, 'transfer', ['lab'])).rejects.toThrow(
      'A transfer is found by its source and destination targets.',
    );
    await expect(jobHeaders(session, 'download', ['lab', 'archive'])).rejects.toThrow(
      'A download is found by its one target.',
    );
    await expect(jobHeaders(session, 'upload', [])).rejects.toThrow('An upload is found by its one target.');
    expect(JOB_KINDS.map(jsonStatusPath)).toEqual([
      '/api_v1/job_status/download.json/',
      '/api_v1/job_status/upload/',
      '/api_v1/job_status/transfer/',
    ]);
    expect(jobStatusPath('download', 'zip')).toBe('/api_v1/job_status/download.zip/');
    expect(jobStatusPath('transfer')).toBe('/api_v1/job_status/transfer/');
  });

  it('has its handler in the worker, handed to the job runner', async () => {
    const module = await Test.createTestingModule({ providers: JOB_HANDLER_PROVIDERS })
      .useMocker(() => ({}))
      .compile();
    const handlers = module.get<JobHandler[]>(JOB_HANDLERS);
    expect(handlers.map((handler) => handler.kind).sort()).toEqual([...JOB_KINDS].sort());
  });
});
