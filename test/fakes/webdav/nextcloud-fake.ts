import { createHash, randomUUID } from 'node:crypto';
import { FakeServer, type FakeAnswer, type FakeRequest } from '../fake-server';

/**
 * A fake Nextcloud's WebDAV endpoint (remote.php/dav), for what a plain WebDAV server lacks: the
 * `oc:checksums` property, the OC-Checksum header kept with a file, chunked upload v2, and its faults. Built
 * from RFC 4918 (https://www.rfc-editor.org/rfc/rfc4918), Nextcloud's developer manual (WebDAV basics,
 * https://docs.nextcloud.com/server/30/developer_manual/client_apis/WebDAV/basic.html, and chunked upload,
 * .../WebDAV/chunking.html) and nextcloud/server's apps/dav (Connector/Sabre/File.php keeps a PUT's
 * OC-Checksum as the file's checksum without checking it; Upload/ChunkingV2Plugin.php). Users log in with
 * Basic auth, as app passwords do, by their id or by a login of their own (an e-mail address), and PROPFIND
 * answers RFC 5397's current-user-principal as Nextcloud does (principals/users/<id>).
 */

interface Node {
  collection: boolean;
  bytes: Buffer;
  /** what Nextcloud keeps in its file cache's checksum column: the OC-Checksum sent, verbatim */
  checksum: string;
  modified: Date;
  etag: string;
}

interface Upload {
  user: string;
  destination: string;
  chunks: Map<number, Buffer>;
}

/** The MD5, SHA1 and ADLER32 line ownCloud's server computes and answers (checksums.feature). */
export function ownCloudChecksums(bytes: Buffer): string {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const adler = ((b << 16) | a) >>> 0;
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  return `SHA1:${hex('sha1')} MD5:${hex('md5')} ADLER32:${adler.toString(16).padStart(8, '0')}`;
}

const MIN_CHUNK = 5 * 1000 * 1000;

export class NextcloudFake {
  readonly server = new FakeServer('Nextcloud', '/remote.php/dav');
  /** every file and folder by `<user>/<path>` ('' below a user is their root) */
  readonly nodes = new Map<string, Node>();
  /** app passwords by user id */
  private readonly passwords = new Map<string, string>();
  /** user ids by a login that is not the id (an e-mail address, an SSO name) */
  private readonly logins = new Map<string, string>();
  readonly uploads = new Map<string, Upload>();
  private clock = Date.now() - 86_400_000;

  constructor() {
    const files = '/files/{user}/{path}';
    this.server
      .route('PROPFIND', '', (request, answer) => this.propfindDavRoot(request, answer))
      .route('PROPFIND', '/files/{user}', (request, answer) => this.propfind(request, answer))
      .route('PROPFIND', files, (request, answer) => this.propfind(request, answer), ['path'])
      .route('GET', files, (request, answer) => this.get(request, answer), ['path'])
      .route('PUT', files, (request, answer) => this.put(request, answer), ['path'])
      .route('MKCOL', files, (request, answer) => this.mkcol(request, answer), ['path'])
      .route('DELETE', files, (request, answer) => this.remove(request, answer), ['path'])
      .route('MOVE', files, (request, answer) => this.move(request, answer), ['path'])
      .route('MKCOL', '/uploads/{user}/{upload}', (request, answer) => this.startUpload(request, answer))
      .route('PUT', '/uploads/{user}/{upload}/{chunk}', (request, answer) => this.putChunk(request, answer))
      .route('MOVE', '/uploads/{user}/{upload}/.file', (request, answer) => this.assemble(request, answer))
      .route('DELETE', '/uploads/{user}/{upload}', (request, answer) => this.abortUpload(request, answer));
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** The `api_url` option of a target here. */
  get urlTemplate(): string {
    return `${this.server.url}/files/{user}/`;
  }

  /**
   * A user whose files root is named by `user` (the id); with `login`, the user logs in with that name instead
   * (an e-mail address, an SSO login), as Nextcloud lets users of LDAP, SAML or e-mail logins. Answers the token.
   */
  addUser(user: string, password: string, login?: string): string {
    this.passwords.set(user, password);
    if (login !== undefined) this.logins.set(login, user);
    this.nodes.set(`${user}/`, this.node(true));
    return `${login ?? user}:${password}`;
  }

  /** A top-level folder of `user` holding `files` (`checksum` as Nextcloud keeps it, when given), newer than before. */
  seedProject(user: string, title: string, files: Record<string, string | Buffer>, checksums = true): string {
    this.nodes.set(`${user}/${title}/`, this.node(true));
    for (const [path, content] of Object.entries(files)) {
      const segments = path.split('/').filter(Boolean);
      for (let depth = 1; depth < segments.length + (path.endsWith('/') ? 1 : 0); depth++)
        this.nodes.set(`${user}/${title}/${segments.slice(0, depth).join('/')}/`, this.node(true));
      if (path.endsWith('/')) continue;
      const bytes = Buffer.from(content);
      this.nodes.set(`${user}/${title}/${path}`, {
        ...this.node(false, bytes),
        checksum: checksums ? ownCloudChecksums(bytes) : '',
      });
    }
    this.nodes.get(`${user}/${title}/`)!.modified = new Date((this.clock += 60_000));
    return Buffer.from(title, 'utf8').toString('base64url');
  }

  reset(): void {
    for (const key of [...this.nodes.keys()])
      if (!key.endsWith('/') || key.split('/').length > 2) this.nodes.delete(key);
    for (const user of this.passwords.keys()) this.nodes.set(`${user}/`, this.node(true));
    this.uploads.clear();
  }

  file(user: string, path: string): Node | undefined {
    return this.nodes.get(`${user}/${path}`);
  }

  private node(collection: boolean, bytes = Buffer.alloc(0)): Node {
    return { collection, bytes, checksum: '', modified: new Date(), etag: randomUUID().replace(/-/g, '') };
  }

  /**
   * The user id Basic auth (an app password) logs in, by the id or the user's login; 401 otherwise, as Sabre's
   * auth plugin answers. Nextcloud's apps/dav lib/Connector/Sabre/Auth.php makes the principal of the id, not of
   * the login name sent.
   */
  private authenticated(request: FakeRequest, answer: FakeAnswer): string | null {
    const [scheme, encoded] = String(request.headers.authorization ?? '').split(' ');
    const [login, ...rest] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':');
    const user = this.logins.get(login) ?? login;
    if (scheme !== 'Basic' || !this.passwords.has(user) || this.passwords.get(user) !== rest.join(':')) {
      answer.empty(401, { 'www-authenticate': 'Basic realm="Nextcloud"' });
      return null;
    }
    return user;
  }

  /** The user of a request into their own files; another name's files are not found (but see propfind). */
  private userOf(request: FakeRequest, answer: FakeAnswer): string | null {
    const user = this.authenticated(request, answer);
    if (user === null) return null;
    if (request.params.user !== user) {
      answer.empty(404);
      return null;
    }
    return user;
  }

  /**
   * `current-user-principal` (RFC 5397), where the PROPFIND asks for it: sabre/dav's DAVACL plugin
   * (lib/DAVACL/Plugin.php, propFind) answers it on every resource, as the principal's URL below the DAV root;
   * Nextcloud's principals of users are `principals/users/<id>` (apps/dav lib/Server.php's
   * principalCollectionSet, Auth.php).
   */
  private principalProp(user: string, asked: string): string {
    if (!asked.includes('current-user-principal')) return '';
    return `<d:current-user-principal><d:href>${this.server.prefix}/principals/users/${encodeURIComponent(user)}/</d:href></d:current-user-principal>`;
  }

  /** PROPFIND of the DAV root (remote.php/dav/): a collection, with the user's principal where asked. */
  private async propfindDavRoot(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const asked = (await request.body()).toString('utf8');
    const user = this.authenticated(request, answer);
    if (user === null) return;
    if (String(request.headers.depth ?? 'infinity') !== '0') return answer.empty(403);
    const props = `<d:resourcetype><d:collection/></d:resourcetype>${this.principalProp(user, asked)}`;
    await this.multistatus(answer, [
      `<d:response><d:href>${this.server.prefix}/</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`,
    ]);
  }

  private async multistatus(answer: FakeAnswer, responses: string[]): Promise<void> {
    const body = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:s="http://sabredav.org/ns">${responses.join('')}</d:multistatus>`;
    await answer.send(207, Buffer.from(body), { 'content-type': 'application/xml; charset=utf-8' });
  }

  private key(request: FakeRequest, collection: boolean): string {
    const path = (request.params.path ?? '').replace(/\/$/, '');
    if (path === '') return `${request.params.user}/`;
    return `${request.params.user}/${path}${collection ? '/' : ''}`;
  }

  /** The node at a request's path, a file or a folder, and its key. */
  private find(request: FakeRequest): { key: string; node: Node } | undefined {
    for (const collection of [false, true]) {
      const key = this.key(request, collection);
      const node = this.nodes.get(key);
      if (node && node.collection === collection) return { key, node };
    }
    return undefined;
  }

  private parentExists(key: string): boolean {
    const trimmed = key.replace(/\/$/, '');
    return this.nodes.get(`${trimmed.slice(0, trimmed.lastIndexOf('/'))}/`)?.collection === true;
  }

  private hrefOf(key: string): string {
    const [user, ...path] = key.split('/');
    return `${this.server.prefix}/files/${user}/${path.map((segment) => encodeURIComponent(segment)).join('/')}`;
  }

  /** PROPFIND (RFC 4918 §9.1): Depth 0 or 1; the fake refuses infinity (403), which servers may (§9.1), so a client sending it fails here. */
  private async propfind(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const asked = (await request.body()).toString('utf8');
    const user = this.authenticated(request, answer);
    if (user === null) return;
    const depth = String(request.headers.depth ?? 'infinity');
    if (depth !== '0' && depth !== '1') return answer.empty(403);
    const principal = this.principalProp(user, asked);
    const owner = request.params.user;
    if (owner !== user) {
      // apps/dav lib/Files/RootCollection.php: another user's files root is an empty collection of that name;
      // a name that is no user's is not found (Sabre's AbstractPrincipalCollection)
      if (!this.passwords.has(owner) || (request.params.path ?? '') !== '') return answer.empty(404);
      return this.multistatus(answer, [this.response(`${owner}/`, this.node(true), principal)]);
    }
    const found = this.find(request);
    if (!found) return answer.empty(404);
    const members =
      depth === '1' && found.node.collection
        ? [...this.nodes.entries()].filter(([key]) => {
            if (key === found.key || !key.startsWith(found.key)) return false;
            const rest = key.slice(found.key.length).replace(/\/$/, '');
            return rest !== '' && !rest.includes('/');
          })
        : [];
    const responses = [[found.key, found.node] as const, ...members].map(([key, node]) =>
      this.response(key, node, principal),
    );
    await this.multistatus(answer, responses);
  }

  /** One response: found properties with 200, those a folder lacks with 404 (Sabre's shape). */
  private response(key: string, node: Node, principal = ''): string {
    const found = [
      principal,
      `<d:getlastmodified>${node.modified.toUTCString()}</d:getlastmodified>`,
      `<d:getetag>&quot;${node.etag}&quot;</d:getetag>`,
      node.collection ? '<d:resourcetype><d:collection/></d:resourcetype>' : '<d:resourcetype/>',
      ...(node.collection
        ? []
        : [
            `<d:getcontentlength>${node.bytes.length}</d:getcontentlength>`,
            '<d:getcontenttype>application/octet-stream</d:getcontenttype>',
            `<oc:checksums><oc:checksum>${node.checksum}</oc:checksum></oc:checksums>`,
          ]),
    ];
    const missing = node.collection ? '<d:getcontentlength/><d:getcontenttype/><oc:checksums/>' : '';
    return (
      `<d:response><d:href>${this.hrefOf(key)}</d:href>` +
      `<d:propstat><d:prop>${found.join('')}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>` +
      (missing
        ? `<d:propstat><d:prop>${missing}</d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>`
        : '') +
      '</d:response>'
    );
  }

  /** GET (§9.4), with ranges; Nextcloud answers a file's checksum in OC-Checksum too. */
  private async get(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    const found = this.find(request);
    if (!found || found.node.collection) return answer.empty(404);
    await answer.send(200, found.node.bytes, { etag: `"${found.node.etag}"` }, true);
  }

  /** PUT (§9.7): 409 without a parent; If-None-Match / If-Match (412); the OC-Checksum kept as sent (File.php). */
  private async put(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const bytes = await request.body();
    if (!this.userOf(request, answer)) return;
    const key = this.key(request, false);
    const existing = this.nodes.get(key);
    if (existing?.collection || this.nodes.get(`${key}/`)) return answer.empty(405);
    if (!this.parentExists(key)) return answer.empty(409);
    if (!this.preconditionsHold(request, existing)) return answer.empty(412);
    if (Number(request.headers['content-length']) !== bytes.length) return answer.empty(400);
    this.nodes.set(key, {
      ...this.node(false, bytes),
      checksum: String(request.headers['oc-checksum'] ?? '').trim(),
    });
    answer.empty(existing ? 204 : 201, { etag: `"${this.nodes.get(key)!.etag}"` });
  }

  private preconditionsHold(request: FakeRequest, existing: Node | undefined): boolean {
    const none = request.headers['if-none-match'];
    if (none === '*' && existing) return false;
    const match = request.headers['if-match'];
    return !(typeof match === 'string' && match.replace(/"/g, '') !== existing?.etag);
  }

  /** MKCOL (§9.3): 405 where something is, 409 without a parent. */
  private async mkcol(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    await request.body();
    if (!this.userOf(request, answer)) return;
    if (this.find(request)) return answer.empty(405);
    const key = this.key(request, true);
    if (!this.parentExists(key)) return answer.empty(409);
    this.nodes.set(key, this.node(true));
    answer.empty(201);
  }

  /** DELETE (§9.6): a folder with everything below it. */
  private async remove(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    const found = this.find(request);
    if (!found) return answer.empty(404);
    for (const key of [...this.nodes.keys()])
      if (key === found.key || (found.node.collection && key.startsWith(found.key))) this.nodes.delete(key);
    answer.empty(204);
  }

  /** MOVE (§9.9) of a file: Overwrite F refuses an existing destination with 412. */
  private async move(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    const found = this.find(request);
    if (!found || found.node.collection) return answer.empty(found ? 501 : 404);
    const destination = this.destinationKey(request);
    if (!destination) return answer.empty(502);
    const existing = this.nodes.get(destination);
    if (existing && request.headers.overwrite === 'F') return answer.empty(412);
    this.nodes.delete(found.key);
    this.nodes.set(destination, found.node);
    answer.empty(existing ? 204 : 201);
  }

  /** The key a Destination header names, within the same user's files; null elsewhere. */
  private destinationKey(request: FakeRequest): string | null {
    const url = new URL(String(request.headers.destination ?? ''), this.server.origin);
    const prefix = `${this.server.prefix}/files/${request.params.user}/`;
    if (url.origin !== this.server.origin || !url.pathname.startsWith(prefix)) return null;
    const path = url.pathname.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
    return `${request.params.user}/${path}`;
  }

  /** Chunked upload v2, step 1: MKCOL of the upload's folder, naming its Destination (ChunkingV2Plugin::afterMkcol). */
  private async startUpload(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    const destination = this.destinationKey(request);
    if (!destination) return answer.empty(400);
    if (this.uploads.has(request.params.upload)) return answer.empty(405);
    this.uploads.set(request.params.upload, { user: request.params.user, destination, chunks: new Map() });
    answer.empty(201);
  }

  /** Step 2: a chunk named by its number, 1 to 10000 (beforePut: 400 otherwise). */
  private async putChunk(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    const bytes = await request.body();
    if (!this.userOf(request, answer)) return;
    const upload = this.uploads.get(request.params.upload);
    if (!upload) return answer.empty(404);
    const number = Number(request.params.chunk);
    if (!Number.isInteger(number) || number < 1 || number > 10_000) return answer.empty(400);
    if (!request.headers.destination) return answer.empty(400);
    upload.chunks.set(number, bytes);
    answer.empty(201);
  }

  /**
   * Step 3: MOVE of `.file` assembles the chunks in their numbers' order at the destination (beforeMove), 201
   * for a new file and 204 for one replaced; chunks but the last must be 5 MB or more, and OC-Total-Length the
   * whole. ChunkingV2Plugin keeps X-OC-MTime, not OC-Checksum: the file has no checksum.
   */
  private async assemble(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    const upload = this.uploads.get(request.params.upload);
    if (!upload) return answer.empty(404);
    const numbers = [...upload.chunks.keys()].sort((a, b) => a - b);
    const chunks = numbers.map((number) => upload.chunks.get(number)!);
    if (chunks.slice(0, -1).some((chunk) => chunk.length < MIN_CHUNK)) return answer.empty(400);
    const bytes = Buffer.concat(chunks);
    if (Number(request.headers['oc-total-length']) !== bytes.length) return answer.empty(400);
    const existing = this.nodes.get(upload.destination);
    if (existing && request.headers.overwrite === 'F') return answer.empty(412);
    if (!this.parentExists(upload.destination)) return answer.empty(409);
    this.nodes.set(upload.destination, this.node(false, bytes));
    this.uploads.delete(request.params.upload);
    answer.empty(existing ? 204 : 201);
  }

  private async abortUpload(request: FakeRequest, answer: FakeAnswer): Promise<void> {
    if (!this.userOf(request, answer)) return;
    answer.empty(this.uploads.delete(request.params.upload) ? 204 : 404);
  }
}
