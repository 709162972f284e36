import { applyDecorators, Controller, Get, Param, Patch, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServiceError } from '@app/common';
import { ProcessSettings } from '@app/config';
import { JobFiles, JobFilesSettings } from '@app/job-files';
import {
  isJobKind,
  JOB_KIND_DESCRIPTIONS,
  JOB_KINDS,
  JOB_STATUS_ROUTE,
  JobStore,
  jobTicket,
  TOKEN_HEADERS,
  type JobKind,
  type TokenRole,
} from '@app/jobs';
import { ApiErrors } from '../common/dto/error.dto';
import { requiredHeader } from '../common/job-headers';
import { LinkBuilder } from '../common/link-builder';
import { sendDownloadZip, zipRedirectSeconds } from './download-zip';
import { CANCELLED_STATUS_CODE, jobStatusAnswer } from './job-status-answer';

/** Each kind, and each kind with each of its formats (`download.zip`). */
const STATUS_ACTIONS = JOB_KINDS.flatMap((kind) => [
  kind,
  ...JOB_KIND_DESCRIPTIONS[kind].formats.map((format) => `${kind}.${format}`),
]);

/**
 * How long a cancel waits for the job to end (docs/behaviour.md#cancel); after that it answers that the job is
 * being cancelled, and the job's status tells when it has been.
 */
const CANCEL_WAIT_MS = 5000;

/** Other spellings of the kinds (`transfers`), each with its kind. */
const KIND_SPELLINGS = new Map<string, JobKind>(
  JOB_KINDS.flatMap((kind) =>
    JOB_KIND_DESCRIPTIONS[kind].spellings.map((spelling) => [spelling, kind] as const),
  ),
);

@ApiTags('jobs')
@Controller(JOB_STATUS_ROUTE)
export class JobStatusController {
  constructor(
    private readonly store: JobStore,
    private readonly processSettings: ProcessSettings,
    private readonly jobFiles: JobFilesSettings,
    private readonly files: JobFiles,
    private readonly links: LinkBuilder,
  ) {}

  @Get(':action')
  @ApiOperation({
    summary: `Poll a job: ${kindsInWords(true)}`,
    description:
      'The job is found by the token header(s) that started it. `download.zip` answers the zip itself once the ' +
      'download has finished.',
  })
  @ApiParam({ name: 'action', enum: STATUS_ACTIONS })
  @TokenHeaders()
  @ApiResponse({ status: 200, description: 'finished: the result fields, or the zip for download.zip' })
  @ApiResponse({ status: 202, description: 'in progress: status, status_code null, message, job_percentage' })
  @ApiResponse({
    status: 500,
    description: 'failed or cancelled: status, status_code, message, job_percentage',
  })
  @ApiErrors({
    400: 'token header missing; unknown action or format',
    404: 'no job for these tokens (ticket)',
  })
  async status(
    @Param('action') action: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { kind, format } = parseAction(action);
    if (format === 'zip') {
      const download = await this.find('download', request);
      if (download.state === 'finished')
        return sendDownloadZip(this.files, download, response, zipRedirectSeconds(this.jobFiles));
    }
    const { httpStatus, body } = jobStatusAnswer(await this.find(kind, request), this.links.for(request));
    response.status(httpStatus).json(body);
  }

  @Patch(':action')
  @ApiOperation({ summary: `Cancel a job: ${kindsInWords(false)}` })
  @ApiParam({ name: 'action', enum: [...JOB_KINDS, ...KIND_SPELLINGS.keys()] })
  @TokenHeaders()
  @ApiResponse({
    status: 200,
    description:
      'cancelled: {status_code: "499", message}, once the job has ended (or, after 5 s, while it is being cancelled)',
  })
  @ApiResponse({
    status: 406,
    description: 'the job had already ended, or was committing its writes: its final status body',
  })
  @ApiErrors({ 400: 'token header missing; unknown action', 404: 'no job for these tokens (ticket)' })
  async cancel(
    @Param('action') action: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { kind, format } = parseAction(action);
    // a cancel takes the plain kind; `download.json` is accepted as the status path's twin
    if (format === 'zip') throw invalidFormat(format);
    const ticket = this.ticketOf(kind, request);
    const { accepted, record } = await this.store.cancel(kind, ticket);
    if (!record) throw invalidTicket(ticket);
    // answered once the worker has taken back what the job wrote (or, too late, finished), unless that is long
    const ended = (await this.store.whenEnded(record, CANCEL_WAIT_MS)) ?? record;
    if (!accepted) {
      // the body of the status, without the resource's link (as the first implementation answered it)
      response.status(406).json(jobStatusAnswer(ended).body);
      return;
    }
    const message = ended.state === 'cancelled' ? ended.message : record.message;
    response.status(200).json({ status_code: CANCELLED_STATUS_CODE, message });
  }

  private async find<K extends JobKind>(kind: K, request: Request) {
    const ticket = this.ticketOf(kind, request);
    const record = await this.store.get(kind, ticket);
    if (!record) throw invalidTicket(ticket);
    return record;
  }

  private ticketOf(kind: JobKind, request: Request): string {
    const tokens = JOB_KIND_DESCRIPTIONS[kind].tokens.map(
      (role) => [role, requiredHeader(request, TOKEN_HEADERS[role])] as const,
    );
    return jobTicket(this.processSettings.secretKey, kind, Object.fromEntries(tokens));
  }
}

/** The kinds as the endpoints' summaries name them: `download(.json|.zip), upload or transfer`. */
function kindsInWords(withFormats: boolean): string {
  const named = JOB_KINDS.map((kind) => {
    const { formats } = JOB_KIND_DESCRIPTIONS[kind];
    return withFormats && formats.length > 0
      ? `${kind}(${formats.map((format) => `.${format}`).join('|')})`
      : kind;
  });
  return `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}

/** The token headers, each documented with the kinds whose jobs it finds (`download and transfer`). */
function TokenHeaders(): MethodDecorator {
  const kindsUsing = (role: TokenRole) =>
    JOB_KINDS.filter((kind) => JOB_KIND_DESCRIPTIONS[kind].tokens.includes(role)).join(' and ');
  return applyDecorators(
    ...Object.entries(TOKEN_HEADERS).map(([role, name]) =>
      ApiHeader({ name, required: false, description: kindsUsing(role as TokenRole) }),
    ),
  );
}

function invalidTicket(ticket: string): ServiceError {
  return ServiceError.notFound(`PresQT Error: Invalid ticket number, '${ticket}'.`);
}

/** `download.json` → download + json; a format must be one of the kind's. */
function parseAction(action: string): { kind: JobKind; format: string | undefined } {
  const [named = '', format, ...rest] = action.split('.');
  const kind = KIND_SPELLINGS.get(named) ?? named;
  if (!isJobKind(kind)) {
    throw ServiceError.badRequest(
      `PresQT Error: '${action}' is not a valid action. Use ${JOB_KINDS.join(', ')}.`,
    );
  }
  if (rest.length > 0 || (format !== undefined && !JOB_KIND_DESCRIPTIONS[kind].formats.includes(format))) {
    throw invalidFormat(format ?? action);
  }
  return { kind, format };
}

function invalidFormat(format: string): ServiceError {
  return ServiceError.badRequest(`PresQT Error: ${format} is not a valid format for this endpoint.`);
}
