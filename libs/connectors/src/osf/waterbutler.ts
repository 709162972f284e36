import type { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import { readJson, type UpstreamClient, type UpstreamResponse } from '../http';
import type { Entity, Hashes } from './entities';

/** WaterButler's account of a file it stored: https://waterbutler.readthedocs.io/en/latest/api.html */
export type StoredFile = Entity<{
  name: string;
  path: string;
  provider: string;
  extra?: { hashes?: Hashes };
}>;

/**
 * OSF's file service, WaterButler (API v1), reached through the URLs OSF gives in `links`: a file's URL
 * downloads it on GET and takes a new version on PUT; a folder's `upload` link takes a new file and its
 * `new_folder` link a new subfolder (https://waterbutler.readthedocs.io/en/latest/api.html#actions).
 */
export class WaterButler {
  constructor(private readonly http: UpstreamClient) {}

  /** A file's bytes, streamed; WaterButler may redirect to the storage that holds them (osfstorage does). */
  async download(fileUrl: string): Promise<Readable> {
    return (await this.http.stream({ url: this.trusted(fileUrl) })).body;
  }

  /** Stores a file's bytes, streamed with their length: 201 for a new file, 200 for a new version. */
  async upload(url: string, query: Record<string, string>, file: IncomingFile): Promise<StoredFile> {
    const response = await this.put(url, query, file);
    if (response.status >= 300) throw await this.http.failure(response);
    return this.stored(response);
  }

  /**
   * A new file in a folder, by the folder's upload link (201); null when WaterButler answers 409, a file or
   * folder of that name being there already.
   */
  async uploadNew(uploadUrl: string, name: string, file: IncomingFile): Promise<StoredFile | null> {
    const response = await this.put(uploadUrl, { kind: 'file', name }, file);
    if (response.status === 409) {
      await response.body.dump();
      return null;
    }
    if (response.status >= 300) throw await this.http.failure(response);
    return this.stored(response);
  }

  /** Makes a subfolder: true when made (201), false when one of that name exists already (409). */
  async makeFolder(newFolderUrl: string, name: string): Promise<boolean> {
    const response = await this.http.request({
      method: 'PUT',
      url: this.trusted(newFolderUrl),
      query: { name },
    });
    if (response.status !== 201 && response.status !== 409) throw await this.http.failure(response);
    await response.body.dump();
    return response.status === 201;
  }

  private async stored(response: UpstreamResponse): Promise<StoredFile> {
    return (await readJson<{ data: StoredFile }>(response, this.http.upstream.name)).data;
  }

  private put(url: string, query: Record<string, string>, file: IncomingFile): Promise<UpstreamResponse> {
    return this.http.request({
      method: 'PUT',
      url: this.trusted(url),
      query,
      headers: { 'content-length': String(file.size), 'content-type': 'application/octet-stream' },
      body: () => file.open(),
    });
  }

  /**
   * A URL of the file service, refused when it is not at an origin trusted with the token: OSF serves the
   * files of a project from the file service of the region it is stored in, and a file service left out of
   * the target's list must not receive the token (a request sent there without it would fail as if the token
   * were wrong).
   */
  private trusted(url: string): string {
    const target = new URL(url);
    if (!this.http.upstream.isTrusted(target))
      throw new ConnectorError(
        502,
        `OSF keeps these files at ${target.origin}, a file service this target does not trust with the token (options.files_url and options.files_urls name those it trusts).`,
      );
    return url;
  }
}
