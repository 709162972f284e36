import type { FakeRequest, FakeServer } from '../fake-server';
import { uploadJson, partJson } from './json';
import type { FigshareState } from './model';

/**
 * The upload service (uploads.figshare.com), as https://docs.figshare.com/old_docs/api/file_uploader/
 * describes it. It asks for no credentials: the upload token in the path is the authorisation (whether a
 * request carried an Authorization header anyway shows in the server's recorded requests). Its errors have
 * empty bodies, as that page says of its 404s.
 */
export function uploadRoutes(server: FakeServer, state: FigshareState): void {
  const partOf = (request: FakeRequest) => {
    const upload = state.uploads.get(request.params.token);
    const part = upload?.parts.find((candidate) => String(candidate.partNo) === request.params.part_no);
    return upload && part ? { upload, part } : undefined;
  };

  // GET /upload/<token>: the upload, its status and its parts; 404 for an unknown token
  server.route('GET', '/upload/{token}', (request, answer) => {
    const upload = state.uploads.get(request.params.token);
    if (!upload) return answer.empty(404);
    answer.json(200, uploadJson(upload));
  });

  // GET /upload/<token>/<part_no>: one part; 404 for an unknown token or part number
  server.route('GET', '/upload/{token}/{part_no}', (request, answer) => {
    const found = partOf(request);
    if (!found) return answer.empty(404);
    answer.json(200, partJson(found.part));
  });

  // PUT /upload/<token>/<part_no>: the part's bytes, from startOffset to endOffset; a body of another length
  // is refused (400) and the part stays PENDING. A part may be sent again until the upload is completed.
  server.route('PUT', '/upload/{token}/{part_no}', async (request, answer) => {
    const found = partOf(request);
    if (!found || found.upload.status !== 'PENDING') {
      request.raw.resume();
      return answer.empty(found ? 400 : 404);
    }
    const body = await request.body();
    if (body.length !== found.part.endOffset - found.part.startOffset + 1) return answer.empty(400);
    found.part.received = body;
    answer.empty(200);
  });
}

/**
 * The file host (ndownloader.figshare.com), where a file's `download_url` points. A published article's files
 * are anyone's; an unpublished article's are its owner's only: the request must carry `Authorization: token
 * <the owner's token>` (403 otherwise), as every private endpoint does (https://docs.figshare.com/old_docs/api/,
 * "Authentication"). Range requests are honoured (206), as a file host does.
 */
export function downloadRoutes(server: FakeServer, state: FigshareState): void {
  // GET /files/<file_id>: the bytes of an available file
  server.route('GET', '/files/{file_id}', async (request, answer) => {
    const found = /^\d+$/.test(request.params.file_id)
      ? state.files.get(Number(request.params.file_id))
      : undefined;
    if (!found || found.file.status !== 'available') return answer.json(404, { message: 'File not found' });
    const token = /^token (\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    const mayRead =
      found.article.published !== null || state.users.get(token ?? '')?.id === found.article.owner;
    if (!mayRead) return answer.json(403, { message: 'You do not have access to this file' });
    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(found.file.name)}`;
    await answer.send(200, found.file.content, { 'content-disposition': disposition }, true);
  });
}
