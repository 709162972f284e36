import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { ServiceError } from '@app/common';
import type { AppConfig } from '@app/config';
import type { JobRecord } from '@app/jobs';

/** The finished zip of a download run, where the worker left it; 404 once it is gone. */
export async function downloadZip(
  config: AppConfig,
  record: JobRecord<'download'>,
): Promise<{ path: string; name: string; size: number }> {
  const gone = () => ServiceError.notFound('PresQT Error: the zip of this download is no longer available.');
  const name = record.result.zip_name;
  if (name === undefined) throw gone();
  const path = join(config.jobDir(record.kind, record.ticket, record.run_id), name);
  const size = await stat(path).then(
    (stats) => stats.size,
    () => {
      throw gone();
    },
  );
  return { path, name, size };
}

/** Streams a download's zip from disk as an `application/zip` attachment named after it. */
export async function sendDownloadZip(
  config: AppConfig,
  record: JobRecord<'download'>,
  response: Response,
): Promise<void> {
  const zip = await downloadZip(config, record);
  response.status(200).type('application/zip').setHeader('Content-Length', zip.size).attachment(zip.name);
  // a failure mid-stream (the client went away) has already closed both ends; nothing is left to answer
  await pipeline(createReadStream(zip.path), response).catch(() => undefined);
}
