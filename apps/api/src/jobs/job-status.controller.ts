import { Controller, Get, Param, Patch, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServiceError } from '@app/common';
import { AppConfig } from '@app/config';
import { JobStore, jobStatusResponse, ticketFor, type JobKind } from '@app/jobs';
import { ApiErrors } from '../common/dto/error.dto';
import { requiredHeader } from '../common/job-headers';
import { DESTINATION_TOKEN, SOURCE_TOKEN } from '../common/required-header.decorator';
import { sendDownloadZip } from './download-zip';

const CANCELLED_MESSAGE: Record<JobKind, string> = {
  download: 'Download was cancelled by the user.',
  upload: 'Upload was cancelled by the user.',
  transfer: 'Transfer was cancelled by the user.',
};

/** The token headers that identify each kind of job (decision 8). */
const TOKEN_HEADERS: Record<JobKind, string[]> = {
  download: [SOURCE_TOKEN],
  upload: [DESTINATION_TOKEN],
  transfer: [SOURCE_TOKEN, DESTINATION_TOKEN],
};

@ApiTags('jobs')
@Controller('api_v1/job_status')
export class JobStatusController {
  constructor(
    private readonly store: JobStore,
    private readonly config: AppConfig,
  ) {}

  @Get(':action')
  @ApiOperation({
    summary: 'Poll a job: download(.json|.zip), upload or transfer',
    description:
      'The job is found by the token header(s) that started it. `download.zip` answers the zip itself once the ' +
      'download has finished.',
  })
  @ApiParam({ name: 'action', enum: ['download', 'download.json', 'download.zip', 'upload', 'transfer'] })
  @ApiHeader({ name: SOURCE_TOKEN, required: false, description: 'download and transfer' })
  @ApiHeader({ name: DESTINATION_TOKEN, required: false, description: 'upload and transfer' })
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
    const { kind, format } = parseAction(action, ['json', 'zip']);
    const record = await this.find(kind, request);
    const { httpStatus, body } = jobStatusResponse(record);
    if (format === 'zip' && record.status === 'finished') {
      await sendDownloadZip(this.config, record, response);
      return;
    }
    response.status(httpStatus).json(body);
  }

  @Patch(':action')
  @ApiOperation({ summary: 'Cancel a job: download, upload or transfer' })
  @ApiParam({ name: 'action', enum: ['download', 'upload', 'transfer'] })
  @ApiHeader({ name: SOURCE_TOKEN, required: false, description: 'download and transfer' })
  @ApiHeader({ name: DESTINATION_TOKEN, required: false, description: 'upload and transfer' })
  @ApiResponse({ status: 200, description: 'cancelled: {status_code: "499", message}' })
  @ApiResponse({ status: 406, description: 'the job had already ended: its final status body' })
  @ApiErrors({ 400: 'token header missing; unknown action', 404: 'no job for these tokens (ticket)' })
  async cancel(
    @Param('action') action: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { kind } = parseAction(action, ['json']);
    const ticket = this.ticketOf(kind, request);
    const { cancelled, record } = await this.store.cancel(kind, ticket, CANCELLED_MESSAGE[kind]);
    if (!record) throw invalidTicket(ticket);
    if (cancelled) {
      response.status(200).json({ status_code: '499', message: CANCELLED_MESSAGE[kind] });
      return;
    }
    response.status(406).json(jobStatusResponse(record).body);
  }

  private async find(kind: JobKind, request: Request) {
    const ticket = this.ticketOf(kind, request);
    const record = await this.store.get(kind, ticket);
    if (!record) throw invalidTicket(ticket);
    return record;
  }

  private ticketOf(kind: JobKind, request: Request): string {
    const tokens = TOKEN_HEADERS[kind].map((name) => requiredHeader(request, name));
    return ticketFor(this.config.secretKey, ...tokens);
  }
}

function invalidTicket(ticket: string): ServiceError {
  return ServiceError.notFound(`PresQT Error: Invalid ticket number, '${ticket}'.`);
}

/** `download.json` → download + json; only download has formats, and only json or zip. */
function parseAction(
  action: string,
  formats: readonly string[],
): { kind: JobKind; format: string | undefined } {
  const [kind, format, ...rest] = action.split('.');
  if (kind !== 'download' && kind !== 'upload' && kind !== 'transfer') {
    throw ServiceError.badRequest(
      `PresQT Error: '${action}' is not a valid action. Use download, upload or transfer.`,
    );
  }
  if (rest.length > 0 || (format !== undefined && (kind !== 'download' || !formats.includes(format)))) {
    throw ServiceError.badRequest(
      `PresQT Error: ${format ?? action} is not a valid format for this endpoint.`,
    );
  }
  return { kind, format };
}
