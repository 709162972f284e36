import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectorError } from '../connector-error';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from '../http';
import { PRINCIPAL_BODY, PROPFIND_BODY, parseMultistatus, type DavEntry } from './entities';

/** A PROPFIND answer is one folder's entries; anything larger is refused rather than held in memory. */
const MAX_MULTISTATUS_BYTES = 64 << 20;
const XML = 'application/xml; charset=utf-8';

export type MkcolOutcome = 'created' | 'exists' | 'no parent' | 'refused';
const MKCOL_OUTCOMES: Record<number, MkcolOutcome> = {
  201: 'created',
  405: 'exists',
  409: 'no parent',
  404: 'refused',
  501: 'refused',
};

/** What a write sends besides its body: a precondition (RFC 7232), a checksum for the server to keep. */
export interface WriteHeaders {
  'if-match'?: string;
  'if-none-match'?: string;
  'oc-checksum'?: string;
}

/**
 * A WebDAV server (RFC 4918, https://www.rfc-editor.org/rfc/rfc4918) as one user reaches it: the user's root
 * (Nextcloud's and ownCloud's `remote.php/dav/files/<user>/`), paths below it as decoded segments. Listings
 * are PROPFINDs of Depth 0 or 1, never `infinity` (§9.1: servers may refuse it, and it answers a whole tree
 * at once). A 423 Locked (§11.3: another client holds a lock) is waited out as a rate limit is, then reported.
 */
export class WebdavApi {
  constructor(
    private readonly http: UpstreamClient,
    /** the user's root, ending in `/` */
    readonly root: URL,
  ) {}

  get name(): string {
    return this.http.upstream.name;
  }

  /** The URL of a path below the root; a collection's ends in `/`. */
  urlOf(path: readonly string[], collection = false): URL {
    const encoded = path.map((segment) => encodeURIComponent(segment)).join('/');
    return new URL(`${encoded}${collection && path.length > 0 ? '/' : ''}`, this.root);
  }

  /**
   * The resource at `path` (Depth 0) or it and its members (Depth 1), itself first (§9.1). A 404 is the
   * unknown `resourceId`.
   */
  async propfind(
    path: readonly string[],
    depth: 0 | 1,
    resourceId?: string,
    body = PROPFIND_BODY,
  ): Promise<DavEntry[]> {
    const response = await this.sendPropfind(this.urlOf(path, path.length === 0), depth, body);
    if (response.status !== 207) {
      if (response.status === 404 && resourceId === undefined) {
        await response.body.dump();
        throw new ConnectorError(404, `${this.name} has nothing at '/${path.join('/')}'.`);
      }
      throw await this.http.failure(response, resourceId);
    }
    const entries = parseMultistatus(await readText(response, this.name), this.root.pathname, this.name);
    const key = path.join('/');
    const self = entries.findIndex((entry) => entry.path.join('/') === key);
    if (self < 0)
      throw new ConnectorError(502, `${this.name} did not describe '/${key}' in its PROPFIND answer.`);
    return [entries[self], ...entries.filter((_entry, index) => index !== self)];
  }

  /** The resource at `path`; null where there is none. */
  async stat(path: readonly string[], body = PROPFIND_BODY): Promise<DavEntry | null> {
    try {
      return (await this.propfind(path, 0, undefined, body))[0];
    } catch (error) {
      if (error instanceof ConnectorError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * The href of the user's principal (RFC 5397 `current-user-principal`) as the resource at `url` answers it
   * (a resource outside the root: the DAV root); null where the server names none there.
   */
  async principalAt(url: URL): Promise<string | null> {
    const response = await this.sendPropfind(url, 0, PRINCIPAL_BODY);
    if (response.status === 401 || response.status >= 500) throw await this.http.failure(response);
    if (response.status !== 207) {
      await response.body.dump();
      return null;
    }
    const entries = parseMultistatus(await readText(response, this.name), '/', this.name);
    return entries.find((entry) => entry.principal !== undefined)?.principal ?? null;
  }

  private sendPropfind(url: URL, depth: 0 | 1, body: string): Promise<UpstreamResponse> {
    return this.http.request({
      method: 'PROPFIND',
      url,
      headers: { depth: String(depth), 'content-type': XML, accept: 'application/xml, text/xml' },
      body: () => body,
      // reading properties changes nothing
      idempotent: true,
    });
  }

  /** A file's bytes (GET, §9.4), streamed; a cut body is resumed with a Range request by the client. */
  async download(path: readonly string[]): Promise<Readable> {
    return (await this.http.stream({ url: this.urlOf(path), headers: { accept: '*/*' } })).body;
  }

  /**
   * Stores a file's bytes at `path` (PUT, §9.7), streamed with their length. A failed precondition (412: the
   * file appeared or changed since it was read) is refused, never overwritten.
   */
  async put(path: readonly string[], size: number, open: () => Promise<Readable>, headers: WriteHeaders) {
    const response = await this.unlocked(`'/${path.join('/')}'`, {
      method: 'PUT',
      url: this.urlOf(path),
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size), ...headers },
      body: open,
      idempotent: true,
    });
    await this.expectWritten(response, path);
  }

  /**
   * Makes a collection (MKCOL, §9.3): `created`; `exists` where something has the name (405); `no parent`
   * where the collection above is missing (409); `refused` where the server takes no MKCOL there (404, 501).
   */
  async mkcol(url: URL, headers: Record<string, string> = {}): Promise<MkcolOutcome> {
    const response = await this.unlocked(`'${url.pathname}'`, { method: 'MKCOL', url, headers });
    const outcome = MKCOL_OUTCOMES[response.status];
    if (!outcome) throw await this.http.failure(response);
    await response.body.dump();
    return outcome;
  }

  /** Deletes a file or a collection with all it holds (DELETE, §9.6); what is gone already counts as deleted. */
  async remove(url: URL): Promise<void> {
    const response = await this.unlocked(`'${url.pathname}'`, { method: 'DELETE', url });
    if (response.status >= 300 && response.status !== 404) throw await this.http.failure(response);
    await response.body.dump();
  }

  /** Moves a resource (MOVE, §9.9) to `destination`, with whatever the move's protocol asks (chunked uploads). */
  async move(from: URL, destination: URL, headers: Record<string, string>): Promise<void> {
    const response = await this.unlocked(`'${destination.pathname}'`, {
      method: 'MOVE',
      url: from,
      headers: { destination: destination.href, ...headers },
    });
    await this.expectWritten(response, destination.pathname.split('/'));
  }

  /** Sends a chunk of a chunked upload (a PUT into the upload's collection). */
  async putChunk(url: URL, size: number, open: () => Promise<Readable>, headers: Record<string, string>) {
    const response = await this.unlocked(`'${url.pathname}'`, {
      method: 'PUT',
      url,
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size), ...headers },
      body: open,
      idempotent: true,
    });
    if (response.status >= 300) throw await this.http.failure(response);
    await response.body.dump();
  }

  private async expectWritten(response: UpstreamResponse, path: readonly string[]): Promise<void> {
    if (response.status === 412) {
      await response.body.dump();
      throw new ConnectorError(
        409,
        `'${path.join('/')}' changed at ${this.name} while it was being written (412 Precondition Failed); it was left as it is there.`,
      );
    }
    if (response.status >= 300) throw await this.http.failure(response);
    await response.body.dump();
  }

  /**
   * A request sent again while the server answers 423 Locked (a desktop client syncing the file holds a
   * lock for a while), with the client's backoff and within its longest wait; then 503 naming the lock.
   */
  private async unlocked(what: string, request: UpstreamRequest): Promise<UpstreamResponse> {
    const { retries, retryBaseMs, maxWaitMs } = this.http.upstream.settings;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const response = await this.http.request(request);
      if (response.status !== 423) return response;
      await response.body.dump();
      const wait = Math.min(retryBaseMs * 2 ** (attempt - 1), maxWaitMs - waited);
      if (attempt > retries || wait <= 0)
        throw new ConnectorError(
          503,
          `${what} stayed locked at ${this.name} (423 Locked: another client holds a lock on it); try again later.`,
        );
      await sleep(wait);
      waited += wait;
    }
  }
}

/** The text of an answer's body, refusing one too large to hold. */
async function readText(response: UpstreamResponse, upstream: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_MULTISTATUS_BYTES) {
      response.body.destroy();
      throw new ConnectorError(
        502,
        `${upstream} answered a PROPFIND with more than ${MAX_MULTISTATUS_BYTES} bytes.`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
