import { PassThrough, Readable } from 'node:stream';
import { ZipWriter } from '@app/bagit';
import type { IncomingFile } from '../connector';
import { asciiName, type FormFile } from './multipart-body';

/**
 * The first bytes of a zip archive: a local file header, an empty archive's end record, or a spanned
 * archive's marker (APPNOTE.TXT 4.3.7, 4.3.16, 8.5.3).
 */
const ZIP_SIGNATURES = [
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.from([0x50, 0x4b, 0x05, 0x06]),
  Buffer.from([0x50, 0x4b, 0x07, 0x08]),
];
const SIGNATURE_BYTES = 4;

/** A file on its way through Dataverse's native upload: the form's file part, and whether it is wrapped. */
export interface NativeContent {
  part: FormFile;
  /** the file is a zip, sent inside another zip */
  wrapped: boolean;
  /** closes the stream opened to look at the file, when no attempt used it */
  release(): void;
}

/**
 * The file part that makes Dataverse keep a file as it is. Dataverse unpacks every zip that comes through
 * its native upload, whatever its name (CreateNewDataFilesCommand in IQSS/dataverse: the type is found from
 * the content, and `application/zip` is unpacked into its entries; the User Guide, "Compressed Files"), so a
 * bag's own zip would arrive as its entries. As the guides advise, such a file is sent zipped once more: the
 * outer zip, stored without compression, holds the file as its one entry, which Dataverse unpacks into the
 * file itself (named by `jsonData.label`). The first bytes tell a zip; the stream opened to read them is
 * the first attempt's, so the file is not opened twice.
 */
export async function nativeContent(name: string, file: IncomingFile): Promise<NativeContent> {
  const { head, stream } = await peek(await file.open(), SIGNATURE_BYTES);
  let first: Readable | null = stream;
  const open = async (): Promise<Readable> => {
    const opened = first ?? (await file.open());
    first = null;
    return opened;
  };
  const release = () => {
    first?.destroy();
    first = null;
  };
  const wrapped = ZIP_SIGNATURES.some((signature) => head.subarray(0, SIGNATURE_BYTES).equals(signature));
  const part: FormFile = wrapped
    ? {
        filename: `${asciiName(name)}.zip`,
        open: async () => zipOfOne(asciiName(name), await open(), file.size),
      }
    : { filename: name, size: file.size, open };
  return { part, wrapped, release };
}

/**
 * A zip holding `content` (`size` bytes) as its one entry, streamed as it is made by the zip writer downloads
 * use. Its CRC-32 is known only once the content has gone by, so the entry's CRC-32 and sizes follow its data
 * in a data descriptor, as APPNOTE 4.4.4 sets for a local header written before them; from 4 GiB its local
 * header has a ZIP64 field and the descriptor's sizes are 8 bytes each (4.3.9.2), so that a reader going
 * through the zip from its start (libarchive's) finds the entry's end. The entry is deflated at level 0 (the
 * bytes copied into stored deflate blocks, 5 bytes of header each) rather than stored: Java's
 * `ZipInputStream`, with which Dataverse read uploads before IQSS/dataverse#10899, refuses a stored entry
 * with a data descriptor ("only DEFLATED entries can have EXT descriptor"), and would leave the outer zip
 * unpacked. A failure of the content ends the zip's stream with it.
 */
function zipOfOne(entryName: string, content: Readable, size: number): Readable {
  const zip = new PassThrough();
  const writer = new ZipWriter(zip);
  writer
    .addStream(entryName, content, { deflate: true, level: 0, size })
    .then(() => writer.finish())
    .catch((error: Error) => {
      content.destroy();
      writer.abort(error);
    });
  return zip;
}

/** The first `bytes` of a stream (fewer when it is shorter), and the stream again, whole. */
async function peek(source: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const read: Buffer[] = [];
  let size = 0;
  let ended = false;
  try {
    while (size < bytes) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      read.push(next.value);
      size += next.value.length;
    }
  } catch (error) {
    source.destroy();
    throw error;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* read;
      if (ended) return;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    } finally {
      source.destroy();
    }
  }
  const stream = Readable.from(replay(), { objectMode: false });
  // a stream given up unread never runs replay's finally
  stream.once('close', () => source.destroy());
  return { head: Buffer.concat(read), stream };
}
