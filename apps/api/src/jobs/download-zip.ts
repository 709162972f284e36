import type { Response } from 'express';
import { ServiceError } from '@app/common';
import type { JobFiles, JobFilesSettings } from '@app/job-files';
import type { JobRecord } from '@app/jobs';

const gone = () => ServiceError.notFound('PresQT Error: the zip of this download is no longer available.');

/** The finished zip of a download run in the job-file store; 404 once it is gone. */
export async function downloadZip(
  files: JobFiles,
  record: JobRecord<'download'>,
): Promise<{ name: string; size: number }> {
  const name = record.result?.zip_name;
  if (name === undefined) throw gone();
  const size = await files.size(record, name);
  if (size === null) throw gone();
  return { name, size };
}

/**
 * How long the presigned URL of a redirected zip download works; undefined when downloads are streamed
 * (JOB_FILES_REDIRECT unset, or a store without URLs).
 */
export function zipRedirectSeconds(settings: JobFilesSettings): number | undefined {
  return settings.kind === 's3' && settings.redirect ? settings.urlSeconds : undefined;
}

/**
 * Answers a download's zip as an `application/zip` attachment named after it: streamed from the job-file
 * store; or, given `redirectSeconds`, a 302 to a URL of the store that serves it for that long; or, where a
 * reverse proxy serves the store's folder (JOB_FILES_ACCEL_REDIRECT), an empty answer whose
 * `X-Accel-Redirect` has the proxy send the file (docs/serving-downloads.md).
 */
export async function sendDownloadZip(
  files: JobFiles,
  record: JobRecord<'download'>,
  response: Response,
  redirectSeconds?: number,
): Promise<void> {
  const zip = await downloadZip(files, record);
  const url = redirectSeconds && (await files.url(record, zip.name, zip.name, redirectSeconds));
  // the URL is a credential for a while: no cache may keep the answer
  if (url) {
    response.status(302).setHeader('Cache-Control', 'no-store').location(url).end();
    return;
  }
  const accelPath = files.accelPath(record, zip.name);
  if (accelPath) {
    response
      .status(200)
      .type('application/zip')
      .attachment(zip.name)
      .setHeader('X-Accel-Redirect', accelPath);
    response.end();
    return;
  }
  const body = await files.open(record, zip.name).catch(() => {
    throw gone();
  });
  response.status(200).type('application/zip').setHeader('Content-Length', zip.size).attachment(zip.name);
  // a failure mid-stream (the client went away) has already closed both ends; nothing is left to answer
  await body.sendTo(response).catch(() => undefined);
}
