import type { JobRecord, JobStatus, JobStatusBody } from '@app/jobs';
import type { Links } from '../common/link-builder';

/** The `status_code` of a cancelled job: a string, which the PresQT web client compares as one. */
export const CANCELLED_STATUS_CODE = '499';

/** What the job-status endpoints answer: the HTTP status and the body. */
export interface JobStatusAnswer {
  httpStatus: number;
  body: JobStatusBody;
}

/**
 * A job as the PresQT API answers its status (docs/behaviour.md#job-status; ../shared/spec/decisions.md 11),
 * made from what the store keeps (JobRecord), with the quirks its clients read: `status_code` is null in
 * progress, the string "200" once finished and "499" once cancelled, but the number a failed job reports;
 * `job_percentage` is 100 once finished; a finished job's result fields stand at the top of its body, with a
 * download's `ticket_number` and, given the answer's `links`, an upload's or transfer's `link_to_resource`.
 * A job being cancelled or committing reads in progress. The one place the record becomes a PresQT answer.
 */
export function jobStatusAnswer(record: JobRecord, links?: Links): JobStatusAnswer {
  const opening = (status: JobStatus, statusCode: string | number | null) => ({
    status,
    status_code: statusCode,
    message: record.message,
  });
  const progress = {
    files_total: record.filesTotal,
    files_finished: record.filesDone,
    bytes_total: record.bytesTotal,
    bytes_finished: record.bytesDone,
  };
  switch (record.state) {
    case 'finished':
      return {
        httpStatus: 200,
        body: {
          ...opening('finished', '200'),
          job_percentage: 100,
          ...progress,
          ...record.result,
          ...resultLinks(record, links),
        },
      };
    case 'failed':
      return {
        httpStatus: 500,
        body: { ...opening('failed', record.failureCode), job_percentage: record.percent },
      };
    case 'cancelled':
      return {
        httpStatus: 500,
        body: { ...opening('cancelled', CANCELLED_STATUS_CODE), job_percentage: record.percent },
      };
    default:
      return {
        httpStatus: 202,
        body: { ...opening('in_progress', null), job_percentage: record.percent, ...progress },
      };
  }
}

/**
 * What a finished job's body carries besides its result: a download's ticket, which the emulation service is
 * given (decisions.md 8); an upload's or transfer's resource, as its Detail link (docs/behaviour.md#links).
 */
function resultLinks(record: JobRecord, links: Links | undefined): Record<string, string> {
  if (record.kind === 'download') return { ticket_number: record.ticket };
  const result = record.result as JobRecord<'upload'>['result'];
  if (!links || !result) return {};
  return {
    link_to_resource: links.resourceUrl(result.destination_target_name, result.destination_resource_id),
  };
}
