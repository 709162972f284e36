import type { Provider, Type } from '@nestjs/common';
import type { JobKind } from '@app/jobs';
import { DownloadJob } from './download.job';
import { JOB_HANDLERS, type JobHandler } from './job-handler';
import { TransferJob } from './transfer.job';
import { UploadJob } from './upload.job';

/** The handler of each kind of job, one line a kind: a kind without one does not compile. */
const HANDLERS: { [K in JobKind]: Type<JobHandler<K>> } = {
  download: DownloadJob,
  upload: UploadJob,
  transfer: TransferJob,
};

/** Every handler, and JOB_HANDLERS, the list of them the job runner consumes a queue for each of. */
export const JOB_HANDLER_PROVIDERS: Provider[] = [
  ...Object.values(HANDLERS),
  {
    provide: JOB_HANDLERS,
    inject: Object.values(HANDLERS),
    useFactory: (...handlers: JobHandler[]) => handlers,
  },
];
