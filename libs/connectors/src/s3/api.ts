import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type HeadObjectCommandOutput,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ConnectorError } from '../connector-error';
import type { Upstream } from '../http';
import { UpstreamRequestHandler } from './upstream-handler';

/** An access key pair, from the user's token `<access key id>:<secret access key>`. */
export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3ClientSettings {
  upstream: Upstream;
  region: string;
  pathStyle: boolean;
}

/**
 * Parts of a multipart upload: S3's smallest is 5 MiB
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html). With two in flight, one upload holds
 * about three parts (24 MiB) in memory however large the file.
 */
const PART_BYTES = 8 << 20;
const PARTS_IN_FLIGHT = 2;

/** What a stored object's answer says of it: enough to tell its checksums (see checksums.ts). */
export type StoredObject = Pick<
  HeadObjectCommandOutput,
  | 'ETag'
  | 'ChecksumSHA256'
  | 'ChecksumType'
  | 'ServerSideEncryption'
  | 'SSECustomerAlgorithm'
  | 'ContentLength'
  | 'LastModified'
>;

/** One page of a listing with `/` as the delimiter: the objects at this level and the prefixes below it. */
export type ListedLevel = Pick<
  ListObjectsV2CommandOutput,
  'Contents' | 'CommonPrefixes' | 'IsTruncated' | 'NextContinuationToken'
>;

/**
 * The S3 API as one user reaches it, over the AWS SDK (the `@aws-sdk/client-s3` the job-file store uses)
 * whose requests go through the house's Upstream (UpstreamRequestHandler). Each call names the API
 * reference page it follows. The SDK's own checksums are asked for only where S3 requires them, or where
 * this connector asks (uploads: SHA256): many S3-compatible servers refuse its newer default (CRC32
 * trailers on every upload).
 */
export class S3Api {
  private readonly client: S3Client;

  constructor(
    settings: S3ClientSettings,
    key: AccessKey,
    private readonly upstreamName: string,
  ) {
    this.client = new S3Client({
      endpoint: settings.upstream.baseUrl.href.replace(/\/$/, ''),
      region: settings.region,
      forcePathStyle: settings.pathStyle,
      credentials: key,
      requestHandler: new UpstreamRequestHandler(settings.upstream),
      // the Upstream retries, with the service's settings
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /**
   * One page of the keys below `prefix`, a level at a time (`Delimiter=/`): objects in Contents, the
   * "folders" below in CommonPrefixes, each counting one against MaxKeys; more pages by continuation token
   * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html).
   */
  async listLevel(
    bucket: string,
    prefix: string,
    maxKeys: number,
    continuationToken?: string,
    resourceId?: string,
  ): Promise<ListedLevel> {
    return this.call(
      this.client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          Delimiter: '/',
          MaxKeys: maxKeys,
          ContinuationToken: continuationToken,
        }),
      ),
      resourceId,
    );
  }

  /** Every key below `prefix`, at any depth, a page at a time (ListObjectsV2 without a delimiter). */
  async *keysBelow(bucket: string, prefix: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await this.call(
        this.client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        ),
      );
      for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * An object's metadata with its checksum where it has one (`x-amz-checksum-mode: ENABLED`,
   * https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html); null when there is no such object.
   * HEAD rather than GetObjectAttributes: every S3-compatible server answers it, and it tells the same.
   */
  async head(bucket: string, key: string, resourceId?: string): Promise<StoredObject | null> {
    try {
      return await this.call(
        this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' })),
        resourceId,
      );
    } catch (error) {
      if (error instanceof ConnectorError && error.status === 404) return null;
      throw error;
    }
  }

  /** An object's bytes, streamed (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html). */
  async read(bucket: string, key: string, resourceId: string): Promise<Readable> {
    const object = await this.call(
      this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key })),
      resourceId,
    );
    // in Node the SDK's body is the answer's stream
    return object.Body as Readable;
  }

  /**
   * A small object in one request (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html);
   * with `ifNoneMatch`, only where no object has the key yet (412 otherwise; a server without conditional
   * writes ignores it).
   */
  async putSmall(bucket: string, key: string, body: Buffer, ifNoneMatch = false): Promise<StoredObject> {
    return this.call(
      this.client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ChecksumAlgorithm: 'SHA256',
          ...(ifNoneMatch ? { IfNoneMatch: '*' } : {}),
        }),
      ),
    );
  }

  /**
   * A file streamed in: one PutObject when it fits in one part, else a multipart upload of 8 MiB parts
   * (`@aws-sdk/lib-storage`), each part's SHA-256 sent for S3 to check. A failed multipart upload is aborted
   * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html), so that its parts do
   * not stay; the upload's own failure is what is reported, also where the server cannot abort (s3rver
   * answers 405): its parts never became an object either way.
   */
  async upload(
    bucket: string,
    key: string,
    body: Readable,
  ): Promise<{ stored: StoredObject; multipart: boolean }> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: bucket, Key: key, Body: body, ChecksumAlgorithm: 'SHA256' },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: true,
    });
    try {
      const stored = await upload.done();
      return { stored, multipart: upload.uploadId !== undefined };
    } catch (error) {
      body.destroy();
      if (upload.uploadId) {
        const abort = new AbortMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: upload.uploadId,
        });
        await this.client.send(abort).catch(() => undefined);
      }
      throw this.failure(error);
    }
  }

  /** https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html; a missing key counts as deleted. */
  async remove(bucket: string, key: string): Promise<void> {
    await this.call(this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
  }

  /** The buckets the key may list (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBuckets.html). */
  async buckets(): Promise<{ name: string; created?: Date }[]> {
    const names: { name: string; created?: Date }[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(this.client.send(new ListBucketsCommand({ ContinuationToken: token })));
      for (const bucket of page.Buckets ?? [])
        if (bucket.Name) names.push({ name: bucket.Name, created: bucket.CreationDate });
      token = page.ContinuationToken;
    } while (token);
    return names;
  }

  /** https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html; false when the name is taken. */
  async createBucket(name: string): Promise<boolean> {
    try {
      await this.call(this.client.send(new CreateBucketCommand({ Bucket: name })));
      return true;
    } catch (error) {
      if (error instanceof ConnectorError && error.status === 409) return false;
      throw error;
    }
  }

  /** https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucket.html (an empty one). */
  async removeBucket(name: string): Promise<void> {
    await this.call(this.client.send(new DeleteBucketCommand({ Bucket: name })));
  }

  /** A command's answer; its failure as the ConnectorError it stands for. */
  private async call<Output>(send: Promise<Output>, resourceId?: string): Promise<Output> {
    try {
      return await send;
    } catch (error) {
      throw this.failure(error, resourceId);
    }
  }

  /**
   * The ConnectorError an S3 error stands for (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html):
   * a key S3 does not know or whose signature fails is a token refused (401); AccessDenied no access (403);
   * NoSuchKey and NoSuchBucket an unknown resource (404); 409 (a bucket name taken) as it is; anything else
   * names S3's status and code. What the Upstream raised (unreachable, too slow) passes as it is.
   */
  private failure(error: unknown, resourceId?: string): unknown {
    if (error instanceof ConnectorError) return error;
    const status = statusOf(error);
    if (status === undefined) return error;
    const code = error instanceof S3ServiceException ? error.name : 'an answer that is not S3 XML';
    if (TOKEN_REFUSED.has(code) || status === 401) return ConnectorError.invalidToken(status);
    if (status === 403) return ConnectorError.forbidden();
    if (status === 404)
      return resourceId === undefined
        ? new ConnectorError(404, `${this.upstreamName} has no such bucket or key (${code}).`)
        : ConnectorError.unknownResource(resourceId);
    if (status === 409) return new ConnectorError(409, `${this.upstreamName}: ${code}.`);
    if (status === 412) return new ConnectorError(412, `${this.upstreamName}: the key is taken.`);
    return new ConnectorError(502, `${this.upstreamName} answered ${status}: ${code}.`);
  }
}

/**
 * The HTTP status of an SDK error: an S3 error's, or that of an answer the SDK could not read as one (a
 * proxy's or load balancer's own error page).
 */
function statusOf(error: unknown): number | undefined {
  const failed = error as { $metadata?: { httpStatusCode?: number }; $response?: { statusCode?: number } };
  return failed.$metadata?.httpStatusCode ?? failed.$response?.statusCode;
}

/** S3's error codes for a key pair it does not take (ErrorResponses.html, "List of error codes"). */
const TOKEN_REFUSED = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
]);
