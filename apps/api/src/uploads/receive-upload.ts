import { mkdir } from 'node:fs/promises';
import type { Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import { ServiceError } from '@app/common';

const UPLOAD_FIELD = 'presqt-file';
/** What a multipart body may carry besides the package: its boundaries, part headers and small fields. */
const MULTIPART_ALLOWANCE = 1 << 20;

function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError(
    413,
    `PresQT Error: the uploaded file is larger than the limit of ${maxBytes} bytes.`,
  );
}

/**
 * Streams the `presqt-file` part of a multipart request to `dir/name` (never into memory) and answers its path.
 * Runs only after the cheap checks, so a bad token never costs a large upload.
 */
export async function receiveUpload(
  request: Request,
  response: Response,
  dir: string,
  name: string,
  maxBytes: number,
): Promise<string> {
  // a body declared larger than any package we take is refused before it is read
  const declared = Number(request.header('content-length'));
  if (declared > maxBytes + MULTIPART_ALLOWANCE) throw tooLarge(maxBytes);
  await mkdir(dir, { recursive: true });
  // a request cut off (or given up by its client) during the checks before this: multer would wait for ever
  // on a body that can no longer come, and the user's upload slot with it
  if (request.destroyed)
    throw ServiceError.badRequest('PresQT Error: the connection closed before the package was received.');
  const upload = multer({
    storage: multer.diskStorage({
      destination: dir,
      filename: (_request, _file, callback) => callback(null, name),
    }),
    limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 40 },
  }).single(UPLOAD_FIELD);
  await new Promise<void>((resolve, reject) =>
    upload(request, response, (error: unknown) => (error ? reject(uploadError(error, maxBytes)) : resolve())),
  );
  if (!request.file) {
    throw ServiceError.badRequest(
      `PresQT Error: The file, '${UPLOAD_FIELD}', is not found in the body of the request.`,
    );
  }
  return request.file.path;
}

function uploadError(error: unknown, maxBytes: number): ServiceError {
  if (error instanceof MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') return tooLarge(maxBytes);
    if (error.code === 'LIMIT_UNEXPECTED_FILE') {
      return ServiceError.badRequest(
        `PresQT Error: unexpected file part '${error.field}'; send the package as the one part '${UPLOAD_FIELD}'.`,
      );
    }
    return ServiceError.badRequest(`PresQT Error: the multipart body was refused: ${error.message}.`);
  }
  return ServiceError.badRequest(
    `PresQT Error: the multipart body could not be read: ${(error as Error).message}.`,
  );
}
