import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createMultiHasher, type MultiHasher } from '@app/fixity';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import type { DataverseApi } from './api';
import type { UploadUrls } from './entities';

/** What a direct upload left in storage, for Dataverse to register (`jsonData` of the add). */
export interface StoredDirectly {
  storageIdentifier: string;
  /** the checksum of the bytes sent, of the installation's type */
  checksum: { type: string; value: string };
  /**
   * The MD5 that storage itself reported (a single part's ETag, where the store's ETags are MD5s): a check of
   * what it holds. A multipart upload's parts are each checked against their ETags instead.
   */
  storageMd5?: string;
}

/** An ETag that is an MD5 of the bytes (S3 without KMS encryption, MinIO). */
function md5Etag(etag: string | undefined): string | undefined {
  const value = etag?.toLowerCase();
  return value && /^[0-9a-f]{32}$/.test(value) ? value : undefined;
}

/**
 * Sends a file's bytes straight to the dataset's store at the presigned URLs Dataverse handed out
 * (https://guides.dataverse.org/en/latest/developers/s3-direct-upload-api.html): one PUT, or one per part of
 * `partSize` bytes and then the `complete` call with the parts' ETags (`abort` when a part fails). The token
 * goes nowhere but the installation: the store's host is not trusted with it. The checksum Dataverse records
 * for such a file is the one sent with it (of the installation's type, `checksumType`), which Dataverse does
 * not compare with the bytes; the store's ETags are what checks them.
 */
export async function uploadDirect(
  api: DataverseApi,
  urls: UploadUrls,
  file: IncomingFile,
  checksumType: string,
  algorithm: string,
): Promise<StoredDirectly> {
  const reader = new PartReader(file, algorithm);
  try {
    const storageMd5 = urls.url
      ? md5Etag(await putPart(api, urls.url, reader, 0, file.size))
      : await putParts(api, urls, reader, file.size);
    return {
      storageIdentifier: urls.storageIdentifier,
      checksum: { type: checksumType, value: reader.digest() },
      ...(urls.url && storageMd5 ? { storageMd5 } : {}),
    };
  } finally {
    reader.close();
  }
}

/** Each part in turn, its ETag checked, then `complete`; `abort` when any part fails. */
async function putParts(
  api: DataverseApi,
  urls: UploadUrls,
  reader: PartReader,
  size: number,
): Promise<undefined> {
  const parts = Object.keys(urls.urls ?? {}).sort((a, b) => Number(a) - Number(b));
  if (!urls.complete || parts.length === 0 || parts.length * urls.partSize < size)
    throw new ConnectorError(502, 'Dataverse handed out a multipart upload that cannot hold the file.');
  const etags: Record<string, string> = {};
  try {
    for (const [index, part] of parts.entries()) {
      const start = index * urls.partSize;
      const length = Math.max(0, Math.min(urls.partSize, size - start));
      const sent = reader.partMd5Of(start, length);
      const etag = await putPart(api, urls.urls![part], reader, start, length);
      if (etag === undefined)
        throw new ConnectorError(502, `Dataverse's store gave no ETag for part ${part}.`);
      const md5 = md5Etag(etag);
      if (md5 !== undefined && md5 !== (await sent))
        throw new ConnectorError(502, `Dataverse's store holds other bytes than were sent for part ${part}.`);
      etags[part] = etag;
    }
    await api.send({ method: 'PUT', url: api.fromRoot(urls.complete), json: etags, idempotent: true });
  } catch (error) {
    if (urls.abort)
      await api.send({ method: 'DELETE', url: api.fromRoot(urls.abort) }).catch(() => undefined);
    throw error;
  }
  return undefined;
}

/** One PUT of `length` bytes from `start`; the ETag storage answered, without its quotes. */
async function putPart(
  api: DataverseApi,
  url: string,
  reader: PartReader,
  start: number,
  length: number,
): Promise<string | undefined> {
  const response = await api.send({
    method: 'PUT',
    url,
    headers: {
      'content-length': String(length),
      'content-type': 'application/octet-stream',
      ...tagging(url),
    },
    body: () => Readable.from(reader.read(start, length)),
    idempotent: true,
  });
  const etag: unknown = response.headers.etag;
  return typeof etag === 'string' ? etag.replace(/"/g, '') : undefined;
}

/**
 * The tag Dataverse's store expects on a direct upload until Dataverse registers the file (`dv-state=temp`),
 * when the presigned URL was signed with it; a store with tagging disabled signs none, and refuses one sent.
 */
function tagging(url: string): Record<string, string> {
  const signed = new URL(url).searchParams.get('X-Amz-SignedHeaders') ?? '';
  return signed.split(';').includes('x-amz-tagging') ? { 'x-amz-tagging': 'dv-state=temp' } : {};
}

/**
 * The parts of a file, read in turn from one opening of it; a part sent again (a retried PUT) reopens the
 * file and skips to where the part starts. The whole file's checksum is taken as its bytes are first read,
 * each byte once, and each part's MD5 as the part is read for the first time.
 */
class PartReader {
  private source: AsyncIterator<Buffer> | null = null;
  private stream: Readable | null = null;
  private pending: Buffer | null = null;
  private position = 0;
  private hashedTo = 0;
  private readonly whole: MultiHasher;
  private readonly partHashes = new Map<
    number,
    { resolve(md5: string): void; hash: ReturnType<typeof createHash> }
  >();

  constructor(
    private readonly file: IncomingFile,
    private readonly algorithm: string,
  ) {
    this.whole = createMultiHasher([algorithm]);
  }

  /** The MD5 of the part starting at `start`, once it has been read. */
  partMd5Of(start: number, length: number): Promise<string> {
    return new Promise((resolve) => {
      if (length === 0) return resolve(createHash('md5').digest('hex'));
      this.partHashes.set(start, { resolve, hash: createHash('md5') });
    });
  }

  async *read(start: number, length: number): AsyncGenerator<Buffer> {
    if (this.position !== start || !this.source) await this.reopenAt(start);
    const part = this.partHashes.get(start);
    // a part sent again is hashed again, from its start
    if (part) part.hash = createHash('md5');
    let left = length;
    while (left > 0) {
      let chunk = this.pending ?? (await this.next());
      this.pending = null;
      if (chunk.length > left) {
        this.pending = chunk.subarray(left);
        chunk = chunk.subarray(0, left);
      }
      this.hash(chunk);
      part?.hash.update(chunk);
      this.position += chunk.length;
      left -= chunk.length;
      yield chunk;
    }
    if (part) {
      this.partHashes.delete(start);
      part.resolve(part.hash.digest('hex'));
    }
  }

  digest(): string {
    return this.whole.digest()[this.algorithm];
  }

  close(): void {
    this.stream?.destroy();
    this.stream = null;
    this.source = null;
  }

  private async next(): Promise<Buffer> {
    const next = await this.source!.next();
    if (next.done) throw new ConnectorError(502, 'The file ended before its size was reached.');
    return next.value;
  }

  /** The file opened again and read up to `start`. */
  private async reopenAt(start: number): Promise<void> {
    this.close();
    this.stream = await this.file.open();
    this.source = this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.pending = null;
    this.position = 0;
    while (this.position < start) {
      let chunk = await this.next();
      if (this.position + chunk.length > start) {
        this.pending = chunk.subarray(start - this.position);
        chunk = chunk.subarray(0, start - this.position);
      }
      this.hash(chunk);
      this.position += chunk.length;
    }
  }

  /** Feeds the whole file's hash the bytes of `chunk` (at the current position) it has not had yet. */
  private hash(chunk: Buffer): void {
    const from = this.hashedTo - this.position;
    if (from >= chunk.length) return;
    this.whole.update(from > 0 ? chunk.subarray(from) : chunk);
    this.hashedTo = this.position + chunk.length;
  }
}
