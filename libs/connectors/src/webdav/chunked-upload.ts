import { createHash, randomUUID, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import type { WebdavApi } from './api';

/**
 * Nextcloud's chunked upload v2 (https://docs.nextcloud.com/server/30/developer_manual/client_apis/WebDAV/chunking.html):
 * a collection under the user's uploads root made with MKCOL, the file's chunks PUT into it as `1`, `2`, ...
 * (numbers from 1 to 10000, assembled in their order, 5 MB to 5 GB each but the last), then `.file` moved to
 * the file's place; each request names the destination (`Destination`) and the last two the whole length
 * (`OC-Total-Length`). The upload's collection is deleted when anything fails (it would expire after 24 hours).
 * The file is read once: the chunks are cut from one stream as they go. The MD5 computed meanwhile goes with
 * the MOVE as `OC-Checksum` for servers that keep it there (ownCloud's chunking); Nextcloud's
 * apps/dav/lib/Upload/ChunkingV2Plugin.php keeps only the MOVE's X-OC-MTime and X-OC-CTime, so a file uploaded
 * in chunks has no oc:checksums there and is checked by reading it.
 */

/** The most chunks an upload may have. */
const MAX_CHUNKS = 10_000;

/** The chunks of one file, cut from a single stream of it; a chunk sent again reads the file anew up to it. */
class ChunkSource {
  private stream?: AsyncIterator<Buffer>;
  /** the offset of the next byte the stream gives */
  private position = 0;
  private leftover: Buffer | null = null;
  /** bytes hashed so far: a chunk read again is not hashed twice */
  private hashed = 0;
  readonly md5: Hash = createHash('md5');

  constructor(private readonly file: IncomingFile) {}

  /** The bytes from `start` to `end`, streamed. */
  async slice(start: number, end: number): Promise<Readable> {
    if (this.stream === undefined || this.position !== start) await this.reopenAt(start);
    return Readable.from(this.take(end));
  }

  private async reopenAt(start: number): Promise<void> {
    await this.stream?.return?.();
    this.stream = (await this.file.open())[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.position = 0;
    this.leftover = null;
    for await (const _skipped of this.take(start));
  }

  private async *take(end: number): AsyncGenerator<Buffer> {
    while (this.position < end) {
      let chunk = this.leftover;
      this.leftover = null;
      if (!chunk) {
        const next = await this.stream!.next();
        if (next.done) throw new ConnectorError(400, 'The file ended before its size.');
        chunk = next.value;
      }
      if (this.position + chunk.length > end) {
        this.leftover = chunk.subarray(end - this.position);
        chunk = chunk.subarray(0, end - this.position);
      }
      if (this.position + chunk.length > this.hashed) {
        this.md5.update(chunk.subarray(Math.max(0, this.hashed - this.position)));
        this.hashed = this.position + chunk.length;
      }
      this.position += chunk.length;
      yield chunk;
    }
  }

  async close(): Promise<void> {
    await this.stream?.return?.();
  }
}

/**
 * Uploads `file` to `destination` in chunks of `chunkBytes` through the uploads root; false, with nothing
 * sent, where the server takes no chunked uploads there (MKCOL refused with 404, 405 or 501).
 */
export async function chunkedUpload(
  api: WebdavApi,
  uploadsRoot: URL,
  destination: URL,
  file: IncomingFile,
  chunkBytes: number,
  conditions: Record<string, string>,
): Promise<boolean> {
  const chunkSize = Math.max(chunkBytes, Math.ceil(file.size / MAX_CHUNKS));
  const upload = new URL(`presqt-${randomUUID()}/`, uploadsRoot);
  const named = { destination: destination.href };
  if ((await api.mkcol(upload, named)) !== 'created') return false;
  const source = new ChunkSource(file);
  const total = { ...named, 'oc-total-length': String(file.size) };
  try {
    for (let start = 0, number = 1; start < file.size; start += chunkSize, number++) {
      const end = Math.min(file.size, start + chunkSize);
      await api.putChunk(new URL(String(number), upload), end - start, () => source.slice(start, end), total);
    }
    const checksum = `MD5:${source.md5.digest('hex')}`;
    await api.move(new URL('.file', upload), destination, {
      ...total,
      'oc-checksum': checksum,
      ...conditions,
    });
  } catch (error) {
    await api.remove(upload).catch(() => undefined);
    throw error;
  } finally {
    await source.close();
  }
  return true;
}
