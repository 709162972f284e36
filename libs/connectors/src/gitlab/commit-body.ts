import { Readable } from 'node:stream';
import { base64Length, base64Of } from './staging';

/** One file of a commit: its place in the repository and its staged bytes. */
export interface CommitFile {
  action: 'create' | 'update';
  path: string;
  file: string;
  size: number;
}

/**
 * The JSON body of "Create a commit with multiple files and actions", streamed: each file is read from disk
 * and base64-encoded as the body is sent, so that memory does not grow with the files. Its length is known
 * beforehand, so it is sent with a Content-Length. `open` makes the body anew (for a retried request).
 */
export function commitBody(
  branch: string,
  message: string,
  files: readonly CommitFile[],
): { length: number; open: () => Readable } {
  const head = `{"branch":${JSON.stringify(branch)},"commit_message":${JSON.stringify(message)},"stats":false,"actions":[`;
  const parts = files.map((file, index) => ({
    opening: `${index > 0 ? ',' : ''}{"action":"${file.action}","file_path":${JSON.stringify(file.path)},"encoding":"base64","content":"`,
    file,
  }));
  const closing = '"}';
  const tail = ']}';
  const length =
    Buffer.byteLength(head) +
    parts.reduce(
      (sum, part) => sum + Buffer.byteLength(part.opening) + base64Length(part.file.size) + closing.length,
      0,
    ) +
    tail.length;
  async function* body(): AsyncGenerator<Buffer> {
    yield Buffer.from(head);
    for (const part of parts) {
      yield Buffer.from(part.opening);
      yield* base64Of(part.file.file);
      yield Buffer.from(closing);
    }
    yield Buffer.from(tail);
  }
  return { length, open: () => Readable.from(body(), { objectMode: false }) };
}

/**
 * Files in commits of at most `limit` file bytes each, in the order they were put; a file larger than the
 * limit goes alone into a commit of its own.
 */
export function commitBatches<T extends { size: number }>(files: readonly T[], limit: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && bytes + file.size > limit) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
