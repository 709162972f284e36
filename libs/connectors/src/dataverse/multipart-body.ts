import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A request body of `multipart/form-data` (RFC 7578), made anew for each attempt. */
export interface FormBody {
  headers: Record<string, string>;
  open(): Promise<Readable>;
}

/** The file part of a form: its bytes, and their size when it is known before they are read. */
export interface FormFile {
  filename: string;
  size?: number;
  open(): Promise<Readable>;
}

/**
 * A form of text fields and at most one file (field `file`), as Dataverse's upload calls take it
 * (https://guides.dataverse.org/en/latest/api/native-api.html#add-a-file-to-a-dataset: `-F file=@... -F
 * jsonData=...`). The file streams through; the body's length is given when the file's size is known.
 * Text is sent as UTF-8; the file's name in its header keeps to ASCII (Dataverse takes the real name from
 * `jsonData`), since servers disagree on how to read other characters there.
 */
export function formBody(fields: Record<string, string>, file?: FormFile): FormBody {
  const boundary = `presqt-${randomBytes(16).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n` +
      `Content-Type: text/plain; charset=UTF-8\r\n\r\n${value}\r\n`,
  );
  if (file)
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${asciiName(file.filename)}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
  const head = Buffer.from(parts.join(''), 'utf8');
  const tail = Buffer.from(`${file ? '\r\n' : ''}--${boundary}--\r\n`);
  const length = file && file.size === undefined ? undefined : head.length + (file?.size ?? 0) + tail.length;
  return {
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      ...(length === undefined ? {} : { 'content-length': String(length) }),
    },
    open: async () => Readable.from(file ? around(head, await file.open(), tail) : [head, tail]),
  };
}

async function* around(head: Buffer, content: Readable, tail: Buffer): AsyncGenerator<Buffer> {
  try {
    yield head;
    for await (const chunk of content) yield chunk as Buffer;
    yield tail;
  } finally {
    content.destroy();
  }
}

/** A name with only printable ASCII, no quote or backslash: others become `_`, the extension stays. */
export function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\/]/g, '_');
}

/** JSON with every character beyond ASCII escaped, so that no reading of the bytes can garble it. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
