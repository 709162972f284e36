import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';

/** What the proxy keeps of an object's checksum, as S3 would with it. */
interface KeptChecksum {
  sha256: string;
  type: 'FULL_OBJECT' | 'COMPOSITE';
  /** a multipart upload's ETag as S3 makes it, where s3rver gives the MD5 of the whole */
  etag?: string;
}

const CHECKSUM = 'x-amz-checksum-sha256';

/**
 * A thin proxy in front of a real S3-compatible server (s3rver), on 127.0.0.1: every request goes on to the
 * server as it came (its headers, the Host the client signed, its body), and the answer comes back as the
 * server gave it. On top of it, the FakeServer's faults and latency, and what s3rver does not implement of
 * S3's additional checksums, as Amazon's documentation says S3 does (`checksums`; see each handler). It is a
 * proxy, not a fake of S3's storage: keys, listings, multipart uploads and signatures are s3rver's own.
 */
export class S3ChecksumProxy extends FakeServer {
  /** whether the proxy adds S3's SHA-256 checksums (off: the server's own behaviour, as s3rver has none) */
  checksums = true;
  private readonly kept = new Map<string, KeptChecksum>();
  /** each multipart upload's parts' SHA-256 and MD5 digests, by part number */
  private readonly parts = new Map<string, Map<number, { sha256: Buffer; md5: Buffer }>>();

  constructor(private readonly server: string) {
    super('S3');
    for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
      this.route(method, '', (request, answer) => this.forward(request, answer));
      this.route(method, '/{path}', (request, answer) => this.serve(request, answer), ['path']);
    }
  }

  private async serve(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const object = request.url.pathname;
    const query = request.url.searchParams;
    const checksum = request.headers[CHECKSUM];
    if (!this.checksums) return this.forward(request, answer);
    if (request.method === 'PUT' && typeof checksum === 'string' && !request.headers['x-amz-copy-source'])
      return this.checkedPut(request, answer, object, checksum);
    if (request.method === 'PUT' || request.method === 'DELETE') this.kept.delete(object);
    if (request.method === 'POST' && query.has('uploadId')) return this.complete(request, answer, object);
    return this.forward(request, answer);
  }

  /**
   * PutObject and UploadPart with `x-amz-checksum-sha256`: S3 computes the checksum of the bytes it
   * receives and refuses them with 400 BadDigest when it is not the one sent; it keeps a PutObject's as the
   * object's full-object checksum (ChecksumType FULL_OBJECT), and answers it in the same header
   * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html,
   * https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPart.html,
   * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity-upload.html).
   */
  private async checkedPut(
    request: FakeRequest,
    answer: FakeAnswer,
    object: string,
    checksum: string,
  ): Promise<void> {
    const body = await request.body();
    const digest = createHash('sha256').update(body).digest();
    if (digest.toString('base64') !== checksum) {
      const xml =
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>BadDigest</Code>' +
        '<Message>The SHA256 you specified did not match the calculated checksum.</Message></Error>';
      return answer.send(400, Buffer.from(xml), { 'content-type': 'application/xml' });
    }
    const uploadId = request.url.searchParams.get('uploadId');
    const partNumber = Number(request.url.searchParams.get('partNumber'));
    await this.forward(request, answer, body, (status) => {
      if (status !== 200) return {};
      if (uploadId) {
        const parts = this.parts.get(uploadId) ?? new Map<number, { sha256: Buffer; md5: Buffer }>();
        const md5 = createHash('md5').update(body).digest();
        this.parts.set(uploadId, parts.set(partNumber, { sha256: digest, md5 }));
      } else {
        this.kept.set(object, { sha256: checksum, type: 'FULL_OBJECT' });
      }
      return { [CHECKSUM]: checksum, ...(uploadId ? {} : { 'x-amz-checksum-type': 'FULL_OBJECT' }) };
    });
  }

  /**
   * CompleteMultipartUpload: an object of SHA-256-checked parts keeps a composite checksum, the SHA-256 of
   * its parts' digests put together, shown with the number of parts (`<base64>-<n>`), of type COMPOSITE: not
   * a checksum of the object's bytes (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity-upload.html,
   * "Using part-level checksums for multipart uploads").
   */
  private async complete(request: FakeRequest, answer: FakeAnswer, object: string): Promise<void> {
    const uploadId = request.url.searchParams.get('uploadId') ?? '';
    const parts = this.parts.get(uploadId);
    await this.forward(request, answer, await request.body(), (status) => {
      this.kept.delete(object);
      if (status !== 200 || !parts) return {};
      this.parts.delete(uploadId);
      const digests = [...parts.entries()].sort(([a], [b]) => a - b).map(([, digest]) => digest);
      const of = (algorithm: 'sha256' | 'md5', encoding: 'base64' | 'hex') =>
        createHash(algorithm)
          .update(Buffer.concat(digests.map((digest) => digest[algorithm])))
          .digest(encoding);
      // the ETag likewise: the MD5 of the parts' MD5s, with the number of parts
      // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_Object.html, ETag)
      this.kept.set(object, {
        sha256: `${of('sha256', 'base64')}-${digests.length}`,
        type: 'COMPOSITE',
        etag: `"${of('md5', 'hex')}-${digests.length}"`,
      });
      return {};
    });
  }

  /**
   * The request sent on to the server, its answer sent back; with `x-amz-checksum-mode: ENABLED`, HeadObject
   * and GetObject answer the object's kept checksum and its type
   * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html, ChecksumMode).
   */
  private async forward(
    request: FakeRequest,
    answer: FakeAnswer,
    body?: Buffer,
    extraHeaders: (status: number) => Record<string, string> = () => ({}),
  ): Promise<void> {
    const upstream = await this.send(request, body);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && name !== 'connection' && name !== 'transfer-encoding')
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const kept = this.kept.get(request.url.pathname);
    if (kept?.etag && this.checksums && headers.etag) headers.etag = kept.etag;
    if (kept && this.checksums && request.headers['x-amz-checksum-mode'] === 'ENABLED') {
      headers[CHECKSUM] = kept.sha256;
      headers['x-amz-checksum-type'] = kept.type;
    }
    Object.assign(headers, extraHeaders(upstream.statusCode ?? 500));
    const length = headers['content-length'];
    if (length === undefined || request.method === 'HEAD') {
      const whole = request.method === 'HEAD' ? Buffer.alloc(0) : await readAll(upstream);
      if (request.method === 'HEAD') upstream.resume();
      return answer.send(upstream.statusCode ?? 500, whole, headers);
    }
    return answer.send(upstream.statusCode ?? 500, { size: Number(length), open: () => upstream }, headers);
  }

  private send(request: FakeRequest, body?: Buffer): Promise<IncomingMessage> {
    const target = new URL(this.server);
    return new Promise((resolve, reject) => {
      const sent = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.raw.url,
          headers: request.headers,
        },
        resolve,
      );
      sent.once('error', reject);
      if (body) sent.end(body);
      else (request.raw as Readable).pipe(sent);
    });
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
