import type { FakeAnswer, FakeRequest, FakeServer } from '../fake-server';
import { waterButlerJson, waterButlerUrl, type Origins } from './json';
import {
  childNamed,
  isContributor,
  latest,
  OSF_STORAGE,
  type FakeEntry,
  type FakeFolder,
  type OsfModel,
} from './model';

/**
 * OSF's file service, WaterButler v1 (https://waterbutler.readthedocs.io/en/latest/api.html), the cloud
 * storage osfstorage keeps its bytes in, and the one route of the OSF website that API answers link to.
 */

const BUCKET = 'osf-storage';

/** WaterButler's errors: `{code, message}` (waterbutler/server/api/v1/core.py). */
function fail(answer: FakeAnswer, code: number, message: string): void {
  answer.json(code, { code, message });
}

export class WaterButlerRoutes {
  constructor(
    private readonly files: FakeServer,
    private readonly storage: FakeServer,
    private readonly model: OsfModel,
    private readonly origins: () => Origins,
  ) {}

  install(): void {
    const get = (request: FakeRequest, answer: FakeAnswer) => this.get(request, answer);
    const put = (request: FakeRequest, answer: FakeAnswer) => this.put(request, answer);
    this.files.route('GET', '/v1/resources/{resource}/providers/{provider}/', get);
    this.files.route('GET', '/v1/resources/{resource}/providers/{provider}/{path}', get, ['path']);
    this.files.route('PUT', '/v1/resources/{resource}/providers/{provider}/', put);
    this.files.route('PUT', '/v1/resources/{resource}/providers/{provider}/{path}', put, ['path']);
    /**
     * A signed URL of the cloud storage osfstorage redirects downloads to (Google Cloud Storage in production:
     * https://cloud.google.com/storage/docs/access-control/signed-urls, WaterButler's googlecloud provider):
     * no credentials, a signature instead; Range honoured (https://cloud.google.com/storage/docs/xml-api/get-object-download).
     */
    this.storage.route('GET', `/${BUCKET}/{key}`, async (request, answer) => {
      const blob = this.model.blobs.get(request.params.key);
      if (!request.url.searchParams.get('Signature')) return fail(answer, 403, 'AccessDenied');
      if (!blob) return fail(answer, 404, 'NoSuchKey');
      await answer.send(200, blob, {}, true);
    });
  }

  /**
   * GET: a file downloads (osfstorage redirects to a signed URL of its storage unless `direct` is asked;
   * other providers stream it, honouring Range); a folder lists its entries. "Download" and "direct" at
   * https://waterbutler.readthedocs.io/en/latest/api.html, provider/metadata.py.
   */
  private async get(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const entry = this.entryFor(request, answer, false);
    if (!entry) return;
    if (entry.kind === 'folder')
      return answer.json(200, {
        data: entry.children.map((child) => waterButlerJson(child, this.origins())),
      });
    const version = latest(entry);
    if (entry.provider === OSF_STORAGE && !request.url.searchParams.has('direct')) {
      const expires = Date.now() + 60_000;
      const signed = `${this.storage.origin}/${BUCKET}/${version.sha256}?Expires=${expires}&Signature=fake`;
      return answer.empty(302, { location: signed });
    }
    await answer.send(
      200,
      version.content,
      { 'content-disposition': `attachment; filename="${entry.name}"` },
      true,
    );
  }

  /**
   * PUT on a folder with `name`: a new file (`kind=file`, the default; Content-Length required, 411) or
   * subfolder (`kind=folder`), 201, or 409 when one of that kind and name is there. PUT on a file: a new
   * version, 200. ("Create Subfolder", "Upload New File", "Update Existing File"; provider/create.py.)
   */
  private async put(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const entry = this.entryFor(request, answer, true);
    const kind = request.url.searchParams.get('kind') ?? 'file';
    const name = request.url.searchParams.get('name');
    const refuse = (code: number, message: string) => {
      request.raw.resume();
      fail(answer, code, message);
    };
    if (!entry) return void request.raw.resume();
    if (kind !== 'file' && kind !== 'folder')
      return refuse(400, `Kind must be file, folder or unspecified, not ${kind}`);
    if (kind === 'file' && request.headers['content-length'] === undefined)
      return refuse(411, 'Content-Length is required for file uploads');
    if (entry.kind === 'file') {
      if (name !== null) return refuse(400, "'name' parameter doesn't apply to actions on files");
      this.model.addVersion(entry, await request.body());
      return answer.json(200, { data: waterButlerJson(entry, this.origins()) });
    }
    if (name === null) return refuse(400, "Missing required parameter 'name'");
    if (childNamed(entry, name, kind))
      return refuse(409, `Cannot complete action: file or folder "${name}" already exists in this location`);
    const made =
      kind === 'folder'
        ? this.model.addFolder(entry, name)
        : this.model.addFile(entry, name, await request.body());
    answer.json(201, { data: waterButlerJson(made, this.origins()) });
  }

  /**
   * The entry a request names, when the user behind its token may read it (or write it). WaterButler asks
   * OSF: an unknown token, or no credentials on a private node, answer 401; no permission 403.
   */
  private entryFor(request: FakeRequest, answer: FakeAnswer, write: boolean): FakeEntry | undefined {
    const header = request.headers.authorization;
    const user =
      header === undefined ? null : this.model.userByToken(/^Bearer (.+)$/.exec(header)?.[1] ?? '');
    if (user === undefined) return void fail(answer, 401, 'Unauthorized');
    const node = this.model.nodes.get(request.params.resource);
    if (!node || node.deleted) return void fail(answer, 404, 'Not found');
    const allowed = isContributor(node, user) || (!write && node.public);
    if (!allowed) return void fail(answer, user ? 403 : 401, 'Forbidden');
    const root = node.storages.get(request.params.provider);
    const entry = root && entryAt(this.model, root, `/${request.params.path ?? ''}`);
    if (!entry) return void fail(answer, 404, 'Not found');
    return entry;
  }
}

/**
 * The website's download route, where OSF's `links.download` points (persistent_file_download in
 * https://github.com/CenterForOpenScience/osf.io/blob/develop/addons/base/views.py): anyone without access to
 * a private file goes to the login page; others to the file's WaterButler URL.
 */
export function installWebsiteRoutes(web: FakeServer, model: OsfModel, origins: () => Origins): void {
  web.route('GET', '/download/{file_id}/', (request, answer) => {
    const entry = model.entries.get(request.params.file_id);
    if (!entry) return answer.empty(404);
    if (!entry.node.public)
      return answer.empty(302, {
        location: `${web.origin}/login/?next=${encodeURIComponent(request.url.pathname)}`,
      });
    answer.empty(302, { location: waterButlerUrl(entry, origins()) });
  });
}

/** The entry at a WaterButler path: osfstorage by id (`/<id>`, `/<id>/`), other providers by path. */
function entryAt(model: OsfModel, root: FakeFolder, path: string): FakeEntry | undefined {
  if (path === '/') return root;
  const trimmed = path.replace(/^\/|\/$/g, '');
  let entry: FakeEntry | undefined;
  if (root.provider === OSF_STORAGE) {
    entry = model.entries.get(trimmed);
    if (entry && (entry.node !== root.node || entry.provider !== root.provider)) entry = undefined;
  } else {
    entry = root;
    for (const name of trimmed.split('/'))
      entry = entry?.kind === 'folder' ? entry.children.find((child) => child.name === name) : undefined;
  }
  // a trailing slash names a folder, its absence a file (WaterButler's conventions)
  return entry && (entry.kind === 'folder') === path.endsWith('/') ? entry : undefined;
}
