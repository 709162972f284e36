import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './ports';
import { waitForPort } from './redis-server';
import { ROOT } from './stack';

/** s3rver's fixed credentials: it checks every request's signature against them. */
export const ACCESS_KEY = 'S3RVER';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** the environment that points a service's job-file store at this server */
  env: Record<string, string>;
  /** every key in the bucket starting with `prefix` */
  keys(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server process (s3rver, from npm) on a free loopback port, with one empty bucket;
 * it keeps objects in a folder of its own.
 */
export async function startS3Server(): Promise<S3Server> {
  const port = await freePort();
  const bucket = 'presqt-jobs';
  const child = spawn(
    process.execPath,
    [
      // s3rver makes its continuation tokens with DES, which OpenSSL 3 keeps in its legacy provider: without
      // it, any listing longer than one page answers 500
      '--openssl-legacy-provider',
      join(ROOT, 'node_modules', 's3rver', 'bin', 's3rver.js'),
      ...['--directory', mkdtempSync(join(tmpdir(), 'presqt-s3-'))],
      ...['--address', '127.0.0.1', '--port', String(port), '--silent'],
      ...['--configure-bucket', bucket],
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitForPort(port, 15_000);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
  });
  return {
    endpoint,
    bucket,
    env: {
      JOB_FILES: 's3',
      JOB_FILES_S3_BUCKET: bucket,
      JOB_FILES_S3_ENDPOINT: endpoint,
      JOB_FILES_S3_REGION: 'us-east-1',
      JOB_FILES_S3_ACCESS_KEY_ID: ACCESS_KEY,
      JOB_FILES_S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      JOB_FILES_S3_FORCE_PATH_STYLE: 'true',
    },
    async keys(prefix) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key ?? '');
    },
    async stop() {
      client.destroy();
      child.kill('SIGTERM');
      await exited;
    },
  };
}
