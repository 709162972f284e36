import {
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { FTS_METADATA_FILE } from '@app/metadata';
import { ACCESS_KEY } from '../../support/s3-server';

/** s3rver's one key pair, as a token of the connector. */
export const S3RVER_TOKEN = `${ACCESS_KEY}:${ACCESS_KEY}`;

/**
 * Fills a bucket as a user's other tools would (the AWS SDK's PutObject), for the tests: projects of files
 * below a prefix, an empty folder as its marker object (`folder/`), keywords in the project's metadata file.
 */
export class S3Seeder {
  readonly client: S3Client;

  constructor(
    endpoint: string,
    readonly bucket: string,
    readonly prefix: string,
    /** sent with each object, for S3 to keep its SHA-256 (through the checksum proxy) */
    private readonly withChecksums = true,
  ) {
    this.client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: string | Buffer, extra: Partial<PutObjectCommandInput> = {}): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: Buffer.from(body),
        ...(this.withChecksums ? { ChecksumAlgorithm: 'SHA256' as const } : {}),
        ...extra,
      }),
    );
  }

  /** A project `title` holding `files` (a path ending in `/` an empty folder); its id at the connector. */
  async seedProject(
    title: string,
    files: Record<string, string | Buffer>,
    keywords?: string[],
  ): Promise<string> {
    for (const [path, content] of Object.entries(files))
      await this.put(`${this.prefix}${title}/${path}`, content);
    if (keywords)
      await this.put(
        `${this.prefix}${title}/${FTS_METADATA_FILE}`,
        JSON.stringify({ allKeywords: keywords, actions: [] }),
      );
    return Buffer.from(`${title}/`).toString('base64url');
  }

  /** Every key below `below` (the prefix unless given), at any depth. */
  async keys(below = this.prefix): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: below, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async reset(): Promise<void> {
    for (const key of await this.keys())
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  close(): void {
    this.client.destroy();
  }
}
