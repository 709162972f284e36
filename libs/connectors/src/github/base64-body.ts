import { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';

/** A request body made anew for each attempt, with its exact length known before it is sent. */
export interface StreamedBody {
  length: number;
  open: () => Promise<Readable>;
}

/**
 * A JSON object with `fields` and, last, `"content"`: the file's bytes in base64, encoded as they are read so
 * that no more than a chunk of the file is ever held. GitHub takes file contents this way when creating a
 * blob or a file (https://docs.github.com/en/rest/git/blobs#create-a-blob).
 */
export function base64JsonBody(fields: Record<string, string>, file: IncomingFile): StreamedBody {
  const head = `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length > 0 ? ',' : ''}"content":"`;
  const tail = '"}';
  const encodedLength = 4 * Math.ceil(file.size / 3);
  return {
    length: Buffer.byteLength(head) + encodedLength + tail.length,
    open: async () => Readable.from(encode(head, await file.open(), file.size, tail)),
  };
}

async function* encode(head: string, source: Readable, size: number, tail: string): AsyncGenerator<Buffer> {
  yield Buffer.from(head);
  let carried = Buffer.alloc(0);
  let read = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > size) break;
    const bytes = carried.length > 0 ? Buffer.concat([carried, chunk]) : chunk;
    // base64 encodes 3 bytes at a time: the 1 or 2 left over wait for the next chunk
    const whole = bytes.length - (bytes.length % 3);
    if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'));
    carried = Buffer.from(bytes.subarray(whole));
  }
  if (read !== size) {
    source.destroy();
    const came = read > size ? 'more' : String(read);
    throw new ConnectorError(
      400,
      `A file changed while it was sent: ${size} bytes were expected, ${came} came`,
    );
  }
  if (carried.length > 0) yield Buffer.from(carried.toString('base64'));
  yield Buffer.from(tail);
}
