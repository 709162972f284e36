import { JOB_KIND_DESCRIPTIONS, type JobKind } from '@app/jobs';

export type JobEndStatus = 'finished' | 'failed' | 'cancelled';

export interface JobEndedInfo {
  kind: JobKind;
  status: JobEndStatus;
  /** The job's final status message, as the status endpoint reports it. */
  message: string;
  /** Paths of files whose target-supplied hash did not match the bytes received. */
  failedFixity: string[];
  /** Where to fetch the result: the download zip, or the new resource after an upload or transfer. */
  link?: string;
}

export interface MailContent {
  subject: string;
  text: string;
}

const STATUS_TITLE: Record<JobEndStatus, string> = {
  finished: 'Complete',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const STATUS_PHRASE: Record<JobEndStatus, string> = {
  finished: 'has finished',
  failed: 'has failed',
  cancelled: 'was cancelled',
};

/**
 * The notification sent when a job ends (docs/behaviour.md#email), whatever the outcome.
 * Everything here ends up in a mailbox or an .eml file: callers must never pass tokens or other secrets
 * (e.g. in `message` or in `link`).
 */
export function jobEndedMessage(info: JobEndedInfo): MailContent {
  const subject = `PresQT ${JOB_KIND_DESCRIPTIONS[info.kind].title} ${STATUS_TITLE[info.status]}`;
  const lines = [`Your PresQT ${info.kind} ${STATUS_PHRASE[info.status]}.`, '', `Message: ${info.message}`];
  if (info.failedFixity.length > 0) {
    lines.push('', 'Files that failed the fixity check:', ...info.failedFixity.map((path) => `  - ${path}`));
  }
  if (info.link) {
    lines.push('', `Link: ${info.link}`);
  }
  return { subject, text: lines.join('\n') + '\n' };
}
