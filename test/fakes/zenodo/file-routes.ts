import { randomUUID } from 'node:crypto';
import { FakeServer } from '../fake-server';
import { ownDeposition, unauthorized, type Caller, type Router, type ZenodoContext } from './deposit-routes';
import { bucketObjectJson, storedFile, type StoredDeposition, type StoredFile } from './model';
import type { Reply } from './reply';

/** A storage host and the presigned URLs handed out for it (path -> file). */
export interface StorageHost {
  server: FakeServer;
  presigned: Map<string, StoredFile>;
}

export interface FileContext extends ZenodoContext {
  /**
   * Where downloads are redirected, as an InvenioRDM service whose files sit in S3 answers them (a 302 to a
   * presigned URL); null to serve them itself, as Zenodo does.
   */
  storage(): StorageHost | null;
}

/**
 * GET /records/{id}/draft/files/{key}/content and /records/{id}/files/{key}/content: the download links of a
 * deposition's files (`links.download`, https://developers.zenodo.org/#deposition-files). A draft's files are
 * its owner's only; a published deposition's are open.
 */
function content(context: FileContext, draft: boolean) {
  return async (request: { params: Record<string, string> }, reply: Reply, caller: Caller) => {
    const deposition = context.state.depositions.get(Number(request.params.id));
    if (deposition?.submitted === draft) return reply.error(404, 'Not found.');
    if (draft && !ownDeposition(context, request.params.id, reply, caller)) return;
    const file = deposition?.files.find((candidate) => candidate.key === request.params.key);
    if (!deposition || !file) return reply.error(404, 'File not found.');
    const storage = context.storage();
    if (storage) {
      const path = `/${deposition.bucket}/${file.id}`;
      storage.presigned.set(path, file);
      return reply.empty(302, {
        location: `${storage.server.origin}${path}?X-Amz-Signature=${randomUUID()}`,
      });
    }
    await reply.send(file.content, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${encodeURIComponent(file.key)}"`,
    });
  };
}

/** Stores a file under `key`, replacing one of that name with a new file (zenodo-rdm deletes, then adds). */
function store(deposition: StoredDeposition, key: string, body: Buffer): StoredFile {
  const file = storedFile(key, body);
  const index = deposition.files.findIndex((candidate) => candidate.key === key);
  if (index >= 0) deposition.files[index] = file;
  else deposition.files.push(file);
  return file;
}

export function fileRoutes(route: Router, context: FileContext): void {
  // https://developers.zenodo.org/#quickstart-upload: PUT <links.bucket>/<filename>, the body streamed
  route('PUT', '/files/{bucket}/{key}', async (request, reply, caller) => {
    if (caller.owner === null) return unauthorized(reply);
    const deposition = context.state.byBucket(request.params.bucket);
    if (!deposition || deposition.removed) return reply.error(404, 'Bucket not found.');
    if (deposition.owner !== caller.owner)
      return reply.error(403, 'You do not have permission to access this bucket.');
    // files of a published deposition change only in a new version (https://developers.zenodo.org/#new-version)
    if (deposition.submitted) return reply.error(403, 'Bucket is locked.');
    const length = request.headers['content-length'];
    if (length === undefined) return reply.error(400, 'Content-Length is required.');
    const body = await request.body();
    if (body.length !== Number(length))
      return reply.error(400, 'The body does not have Content-Length bytes.');
    const file = store(deposition, request.params.key, body);
    context.state.touch(deposition);
    reply.json(201, bucketObjectJson(context.api(), deposition, file));
  });
  route('GET', '/records/{id}/draft/files/{key}/content', content(context, true));
  route('GET', '/records/{id}/files/{key}/content', content(context, false));
}

/** The storage host behind presigned URLs: it serves whoever has the URL, and wants no Zenodo token. */
export async function startStorageHost(): Promise<StorageHost> {
  const host: StorageHost = { server: new FakeServer('storage'), presigned: new Map() };
  host.server.route('GET', '/{bucket}/{file}', async (request, answer) => {
    const file = host.presigned.get(request.url.pathname);
    if (!file) return answer.json(403, { message: 'SignatureDoesNotMatch' });
    await answer.send(200, file.content, { 'content-type': 'application/octet-stream' }, true);
  });
  await host.server.start();
  return host;
}
