import { setting, Settings } from '@app/config';

/** Where finished job files (download zips, upload packages) are kept for the other side to read. */
export type JobFileStore =
  | {
      kind: 'local';
      /**
       * a reverse proxy's internal location serving `DATA_DIR/jobs`: a zip download is answered with
       * `X-Accel-Redirect` to the zip's path under it, and the proxy sends the file; unset: the API sends it
       */
      accelRedirect: string | undefined;
    }
  | {
      kind: 's3';
      bucket: string;
      /** an S3-compatible service's URL; unset: AWS S3 of `region` */
      endpoint: string | undefined;
      region: string;
      /** unset: the AWS SDK's own chain (environment, shared files, instance roles) */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      /** bucket in the path (`endpoint/bucket/key`) rather than in the host name, as MinIO and others need */
      forcePathStyle: boolean;
      /** answer a zip download with a redirect to a presigned URL instead of streaming it */
      redirect: boolean;
      /** how long such a URL works */
      urlSeconds: number;
    };

/** The job-file store (docs/behaviour.md#job-files): this host's DATA_DIR, or a bucket every process reaches. */
export class JobFilesSettings extends Settings(
  'Job files',
  {
    kind: setting.oneOf('JOB_FILES', ['local', 's3'], {
      default: 'local',
      doc: 'where the files one side of a job leaves for the other are kept: `local` (`DATA_DIR`) or `s3` ([deployment.md](deployment.md#several-hosts))',
    }),
    bucket: setting.text('JOB_FILES_S3_BUCKET', {
      pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      expected: 'the name of a bucket (3 to 63 lower-case letters, digits, . and -)',
      doc: 'the bucket, required with `s3`; keys start `<REDIS_PREFIX>/jobs/`, so deployments can share one',
    }),
    endpoint: setting.url('JOB_FILES_S3_ENDPOINT', {
      example: 'http://minio:9000',
      shownDefault: 'unset (AWS)',
      doc: 'an S3-compatible service; unset: AWS S3 in the region',
    }),
    region: setting.text('JOB_FILES_S3_REGION', {
      default: 'us-east-1',
      doc: "the bucket's region (any value for most S3-compatible services)",
    }),
    accessKeyId: setting.text('JOB_FILES_S3_ACCESS_KEY_ID', {
      expected: 'the id of an access key',
      doc: "with the secret key; both unset: the AWS SDK's own chain (its variables, shared files, a role)",
    }),
    secretAccessKey: setting.text('JOB_FILES_S3_SECRET_ACCESS_KEY', {
      secret: true,
      expected: 'the secret of that key',
      doc: 'the secret of that key; never logged',
    }),
    forcePathStyle: setting.boolean('JOB_FILES_S3_FORCE_PATH_STYLE', {
      default: false,
      doc: "`true`: the bucket in the URL's path (`endpoint/bucket/key`), as MinIO and most self-hosted stores need",
    }),
    redirect: setting.boolean('JOB_FILES_REDIRECT', {
      default: false,
      doc: '`true` (needs `s3`): a finished zip is answered with `302` to a presigned URL instead of streamed',
    }),
    urlSeconds: setting.int('JOB_FILES_URL_SECONDS', {
      min: 10,
      max: 3600,
      default: 300,
      doc: 'how long such a URL works',
    }),
    accelRedirect: setting.text('JOB_FILES_ACCEL_REDIRECT', {
      pattern: /^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/,
      expected: "a reverse proxy's internal location, a path such as /presqt-job-files",
      doc: "with `local`, a reverse proxy's internal location of `DATA_DIR/jobs`: a finished zip is answered with `X-Accel-Redirect` and the proxy sends it ([serving-downloads.md](serving-downloads.md))",
    }),
  },
  (values, rules) => {
    if (values.kind === 's3') rules.require('bucket', 'JOB_FILES is s3');
    if (rules.given('accessKeyId')) rules.require('secretAccessKey', 'JOB_FILES_S3_ACCESS_KEY_ID is set');
    if (rules.given('secretAccessKey')) rules.require('accessKeyId', 'JOB_FILES_S3_SECRET_ACCESS_KEY is set');
    if (values.redirect && values.kind !== 's3')
      rules.refuse('redirect', 'needs JOB_FILES=s3 (a file on a local disk has no URL to send)');
    if (rules.given('accelRedirect') && values.kind !== 'local')
      rules.refuse('accelRedirect', 'needs JOB_FILES=local (the proxy serves the files from its disk)');
  },
) {
  /** the store these settings choose */
  get store(): JobFileStore {
    if (this.kind === 'local') return { kind: 'local', accelRedirect: this.accelRedirect };
    const { accessKeyId, secretAccessKey } = this;
    return {
      kind: 's3',
      // the rules have required the bucket for s3
      bucket: this.bucket!,
      endpoint: this.endpoint,
      region: this.region,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: this.forcePathStyle,
      redirect: this.redirect,
      urlSeconds: this.urlSeconds,
    };
  }
}
