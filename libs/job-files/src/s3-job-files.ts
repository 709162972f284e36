import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { JobFileStore } from './job-files.settings';
import { streamBody, type FileBody } from './file-body';
import { JobFiles, type JobRun, type RunToKeep } from './job-files';

/**
 * Parts of a multipart upload: S3's smallest is 5 MiB. With two in flight, one upload holds at most about
 * three parts (24 MiB) in memory however large the zip.
 */
const PART_BYTES = 8 << 20;
const PARTS_IN_FLIGHT = 2;

type S3Settings = Extract<JobFileStore, { kind: 's3' }>;

/**
 * Job files in an S3-compatible bucket, `<prefix>/<kind>/<ticket>/<run>/<name>`, so that API processes and
 * workers on different hosts share them. Files go in as multipart uploads streamed from the worker's or API's
 * local copy; removal is explicit (a bucket's lifecycle rule could not know that a run was replaced).
 */
export class S3JobFiles extends JobFiles {
  readonly inWorkDir = false;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(
    settings: S3Settings,
    private readonly prefix: string,
  ) {
    super();
    this.bucket = settings.bucket;
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      credentials: settings.credentials,
      forcePathStyle: settings.forcePathStyle,
      // checksums only where S3 requires them: many S3-compatible servers reject the SDK's newer default
      // (CRC32 trailers on every upload); the requests are signed either way
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async keep(run: JobRun, name: string, source: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.key(run, name), Body: createReadStream(source) },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    await upload.done();
    await rm(source, { force: true });
  }

  async size(run: JobRun, name: string): Promise<number | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(run, name) }),
      );
      return head.ContentLength ?? null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async open(run: JobRun, name: string): Promise<FileBody> {
    return streamBody(await this.object(run, name));
  }

  private async object(run: JobRun, name: string): Promise<Readable> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: this.key(run, name) }),
    );
    // in Node the SDK's body is the HTTP response itself, a Readable
    return object.Body as Readable;
  }

  async fetch(run: JobRun, name: string, target: string): Promise<void> {
    // a run resumed on the host that fetched it before finds it whole (it is renamed into place when complete)
    if (
      await stat(target).then(
        (stats) => stats.isFile(),
        () => false,
      )
    )
      return;
    const partial = `${target}.fetching`;
    await pipeline(await this.object(run, name), createWriteStream(partial));
    await rename(partial, target);
  }

  async url(run: JobRun, name: string, filename: string, seconds: number): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.key(run, name),
      ResponseContentDisposition: `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"`,
      ResponseContentType: 'application/zip',
    });
    return getSignedUrl(this.client, command, { expiresIn: seconds });
  }

  async removeRun(run: JobRun): Promise<void> {
    await this.removeUnder(`${this.ticketPrefix(run.kind, run.ticket)}${run.runId}/`);
  }

  async removeRunsExcept(kind: string, ticket: string, keep: RunToKeep): Promise<void> {
    const ticketPrefix = this.ticketPrefix(kind, ticket);
    const runPrefixes: string[] = [];
    for await (const runPrefix of this.folders(ticketPrefix)) runPrefixes.push(runPrefix);
    const kept = typeof keep === 'function' ? await keep() : keep;
    for (const runPrefix of runPrefixes) {
      if (runPrefix !== `${ticketPrefix}${kept}/`) await this.removeUnder(runPrefix);
    }
  }

  async *tickets(kind: string): AsyncIterable<string> {
    const kindPrefix = `${this.prefix}/${kind}/`;
    for await (const folder of this.folders(kindPrefix)) yield folder.slice(kindPrefix.length, -1);
  }

  override async close(): Promise<void> {
    this.client.destroy();
  }

  private key(run: JobRun, name: string): string {
    return `${this.ticketPrefix(run.kind, run.ticket)}${run.runId}/${name}`;
  }

  private ticketPrefix(kind: string, ticket: string): string {
    return `${this.prefix}/${kind}/${ticket}/`;
  }

  /** The "folders" right below `prefix`: the common prefixes of its keys up to the next `/`. */
  private async *folders(prefix: string): AsyncIterable<string> {
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.bucket, Prefix: prefix, Delimiter: '/' },
    );
    for await (const page of pages) {
      for (const folder of page.CommonPrefixes ?? []) if (folder.Prefix) yield folder.Prefix;
    }
  }

  /** Deletes every object whose key starts with `prefix` (one by one: a run has two files at most). */
  private async removeUnder(prefix: string): Promise<void> {
    const pages = paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: prefix });
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object.Key }));
      }
    }
  }
}

function isNotFound(error: unknown): boolean {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}
