import { createHash, randomBytes } from 'node:crypto';
import { FakeServer, type FakeAnswer } from '../fake-server';
import type { Dataset, DataverseState } from './model';

/**
 * The S3 store of a Dataverse installation that offers direct upload, as Dataverse hands it out
 * (S3AccessIO.generateTemporaryS3UploadUrls; developers/s3-direct-upload-api.html): presigned PUT URLs, one per
 * file or one per part with `uploadId` and `partNumber`, answered with the part's MD5 as its ETag (S3's
 * PutObject and UploadPart); an upload tagged `dv-state=temp` where the URL was signed with the tag. Downloads
 * redirected by the Data Access API come here too, presigned. S3's errors are XML. The store knows nothing of
 * Dataverse's tokens, which must never reach it.
 */

const BUCKET = 'demo-dataverse-bucket';

interface StoredObject {
  storageIdentifier: string;
  signature: string;
  /** signed with the `x-amz-tagging` header */
  tagged: boolean;
  content?: Buffer;
  uploadId?: string;
  parts: Map<number, Buffer>;
}

function s3Error(answer: FakeAnswer, status: number, code: string, message: string): Promise<void> {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return answer.send(status, Buffer.from(body), { 'content-type': 'application/xml' });
}

function md5(content: Buffer): string {
  return createHash('md5').update(content).digest('hex');
}

export class FakeStore {
  readonly server = new FakeServer('Dataverse store');
  /** objects by key */
  private readonly objects = new Map<string, StoredObject>();
  private readonly downloads = new Map<string, { file: number; original: boolean }>();

  constructor(private readonly state: DataverseState) {
    this.server.route(
      'PUT',
      `/${BUCKET}/{key}`,
      async (request, answer) => {
        const object = this.objects.get(request.params.key);
        const query = request.url.searchParams;
        if (!object || query.get('X-Amz-Signature') !== object.signature)
          return s3Error(
            answer,
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match the signature you provided.',
          );
        if (request.headers['content-length'] === undefined)
          return s3Error(
            answer,
            501,
            'NotImplemented',
            'A header you provided implies functionality that is not implemented',
          );
        const tagging = request.headers['x-amz-tagging'];
        if (object.tagged && tagging !== 'dv-state=temp')
          return s3Error(
            answer,
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match the signature you provided.',
          );
        if (!object.tagged && tagging !== undefined)
          return s3Error(
            answer,
            403,
            'AccessDenied',
            'There were headers present in the request which were not signed',
          );
        const content = await request.body();
        const part = query.get('partNumber');
        if (part !== null) {
          if (query.get('uploadId') !== object.uploadId)
            return s3Error(answer, 404, 'NoSuchUpload', 'The specified upload does not exist.');
          object.parts.set(Number(part), content);
        } else object.content = content;
        answer.empty(200, { etag: `"${md5(content)}"` });
      },
      ['key'],
    );

    this.server.route('GET', `/${BUCKET}/download/{id}`, async (request, answer) => {
      const download = this.downloads.get(request.url.searchParams.get('X-Amz-Signature') ?? '');
      const file = download && this.state.files.get(download.file);
      if (!file) return s3Error(answer, 403, 'AccessDenied', 'Access Denied');
      await answer.send(200, download.original ? file.original!.content : file.content, {}, true);
    });
  }

  /** The presigned URLs of a new upload of `size` bytes: one, or one per part, with Dataverse's complete and abort calls. */
  presign(key: string, storageIdentifier: string, size: number, partSize: number, dataset: Dataset): object {
    const signature = randomBytes(32).toString('hex');
    const base = `${this.server.origin}/${BUCKET}/${key}`;
    const signing = (headers: string) =>
      `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250101T000000Z&X-Amz-SignedHeaders=${encodeURIComponent(headers)}&X-Amz-Expires=3600&X-Amz-Credential=AKIAFAKE%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=${signature}`;
    if (size <= partSize) {
      this.objects.set(key, { storageIdentifier, signature, tagged: true, parts: new Map() });
      return { url: `${base}?${signing('host;x-amz-tagging')}` };
    }
    const uploadId = randomBytes(12).toString('hex');
    this.objects.set(key, { storageIdentifier, signature, tagged: false, uploadId, parts: new Map() });
    const count = Math.ceil(size / partSize);
    const urls = Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        String(index + 1),
        `${base}?uploadId=${uploadId}&partNumber=${index + 1}&${signing('host')}`,
      ]),
    );
    const call = `/api/datasets/mpupload?globalid=${encodeURIComponent(dataset.persistentId)}&storageidentifier=${encodeURIComponent(storageIdentifier)}&uploadid=${uploadId}`;
    return { urls, abort: call, complete: call };
  }

  /** Joins a multipart upload's parts, when each ETag given is its part's; false otherwise. */
  complete(uploadId: string, etags: Record<string, string>): boolean {
    const object = [...this.objects.values()].find((candidate) => candidate.uploadId === uploadId);
    if (!object) return false;
    const numbers = Object.keys(etags)
      .map(Number)
      .sort((a, b) => a - b);
    if (numbers.length !== object.parts.size) return false;
    for (const number of numbers) {
      const part = object.parts.get(number);
      if (!part || etags[String(number)].replace(/"/g, '') !== md5(part)) return false;
    }
    object.content = Buffer.concat(numbers.map((number) => object.parts.get(number)!));
    object.uploadId = undefined;
    return true;
  }

  abort(uploadId: string): void {
    for (const [key, object] of this.objects) if (object.uploadId === uploadId) this.objects.delete(key);
  }

  /** The bytes stored under a storage identifier, once uploaded whole. */
  stored(storageIdentifier: string): Buffer | undefined {
    return [...this.objects.values()].find((object) => object.storageIdentifier === storageIdentifier)
      ?.content;
  }

  /** A presigned URL of the store for a file's bytes, as S3AccessIO hands out for a redirected download. */
  presignDownload(file: number, original: boolean): string {
    const signature = randomBytes(32).toString('hex');
    this.downloads.set(signature, { file, original });
    return `${this.server.origin}/${BUCKET}/download/${file}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=60&X-Amz-Signature=${signature}`;
  }

  clear(): void {
    this.objects.clear();
    this.downloads.clear();
  }
}
