import { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import type { FigshareApi } from './api';
import type { ArticleFile } from './entities';

/**
 * An incoming file read part after part, in order, from one stream. A part asked for again (its upload was
 * retried) or out of order is read from a stream opened anew and advanced to the part's start, so each part's
 * body can be made again without holding any part in memory.
 */
class PartReader {
  private source: Readable | null = null;
  private chunks: AsyncIterator<Buffer> | null = null;
  private leftover: Buffer | null = null;
  /** the offset of the next byte `take` gives */
  private position = 0;

  constructor(private readonly file: IncomingFile) {}

  async part(start: number, size: number): Promise<Readable> {
    if (this.chunks === null || this.position !== start) await this.reopenAt(start);
    return Readable.from(this.take(size, true));
  }

  close(): void {
    this.source?.destroy();
    this.source = this.chunks = this.leftover = null;
  }

  private async reopenAt(start: number): Promise<void> {
    this.close();
    this.source = await this.file.open();
    this.chunks = this.source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.position = 0;
    // gives nothing, so one step runs it to the end
    await this.take(start, false).next();
  }

  /** The next `size` bytes of the file. */
  private async *take(size: number, give: boolean): AsyncGenerator<Buffer> {
    for (let remaining = size; remaining > 0;) {
      let chunk = this.leftover ?? (await this.nextChunk());
      this.leftover = null;
      if (chunk.length > remaining) {
        this.leftover = chunk.subarray(remaining);
        chunk = chunk.subarray(0, remaining);
      }
      remaining -= chunk.length;
      this.position += chunk.length;
      if (give) yield chunk;
    }
  }

  private async nextChunk(): Promise<Buffer> {
    const next = await this.chunks!.next();
    if (next.done) throw new Error(`the file ended at byte ${this.position} of ${this.file.size}`);
    return next.value;
  }
}

/**
 * Stores a file in an article by FigShare's upload protocol (https://docs.figshare.com/#upload_files): announce
 * it with its name, size and md5, send each part the upload service asks for (of the sizes it dictates),
 * streamed, then complete it. An upload that fails midway is deleted, so no partial file stays in the article.
 * The answer is the file as FigShare lists it once complete.
 */
export async function uploadFile(
  api: FigshareApi,
  articleId: number,
  name: string,
  file: IncomingFile,
  md5: string,
): Promise<ArticleFile> {
  const created = await api.initiateUpload(articleId, name, file.size, md5);
  const reader = new PartReader(file);
  try {
    if (!created.upload_url) throw new ConnectorError(502, `FigShare gave no upload link for '${name}'.`);
    const upload = await api.upload(created.upload_url);
    const parts = [...upload.parts].sort((a, b) => a.startOffset - b.startOffset);
    for (const part of parts) {
      const size = part.endOffset - part.startOffset + 1;
      if (part.status === 'COMPLETE' || size <= 0) continue;
      await api.putPart(created.upload_url, part.partNo, size, () => reader.part(part.startOffset, size));
    }
    await api.completeUpload(articleId, created.id);
    return created;
  } catch (error) {
    // leaves the article as it was; the failure that matters is the upload's
    await api.deleteFile(articleId, created.id).catch(() => undefined);
    throw error;
  } finally {
    reader.close();
  }
}
