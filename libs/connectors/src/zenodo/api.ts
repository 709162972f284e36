import type { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import type { UpstreamClient } from '../http';
import type { BucketObject, Deposition, DepositionFile, DepositionMetadata, ZenodoRecord } from './entities';

/**
 * Newest first: `mostrecent` of https://developers.zenodo.org/#list, which Zenodo sorts by creation date, newest
 * first (LEGACY_SORT_OPTIONS in zenodo/zenodo-rdm's invenio.cfg; the documentation leaves its direction unclear).
 */
const NEWEST_FIRST = 'mostrecent';

export interface DepositionsQuery {
  page: number;
  size: number;
  /** Elasticsearch query-string syntax */
  q?: string;
}

/**
 * Zenodo's deposit API as one user reaches it (https://developers.zenodo.org/#deposit). Paths are the ones the
 * documentation gives; files are stored at and read from the links Zenodo hands out (`links.bucket`,
 * `links.download`). Each `resourceId` names the resource a 404 is about.
 */
export class ZenodoApi {
  constructor(private readonly http: UpstreamClient) {}

  /** One page of the user's depositions (https://developers.zenodo.org/#list). */
  async depositions(query: DepositionsQuery): Promise<Deposition[]> {
    const { data } = await this.http.json<Deposition[]>({
      url: 'deposit/depositions',
      query: { ...query, sort: NEWEST_FIRST },
    });
    return data;
  }

  /** https://developers.zenodo.org/#retrieve */
  async deposition(id: string | number, resourceId: string): Promise<Deposition> {
    const { data } = await this.http.json<Deposition>({ url: `deposit/depositions/${id}` }, resourceId);
    return data;
  }

  /** A published record, anyone's (https://developers.zenodo.org/#records, "Retrieve"). */
  async record(id: string | number, resourceId: string): Promise<ZenodoRecord> {
    const { data } = await this.http.json<ZenodoRecord>({ url: `records/${id}` }, resourceId);
    return data;
  }

  /** Every file of a deposition, with its download link (https://developers.zenodo.org/#deposition-files). */
  async files(depositionId: string | number, resourceId: string): Promise<DepositionFile[]> {
    const { data } = await this.http.json<DepositionFile[]>(
      { url: `deposit/depositions/${depositionId}/files` },
      resourceId,
    );
    return data;
  }

  /** https://developers.zenodo.org/#deposition-files */
  async file(depositionId: string, fileId: string, resourceId: string): Promise<DepositionFile> {
    const { data } = await this.http.json<DepositionFile>(
      { url: `deposit/depositions/${depositionId}/files/${fileId}` },
      resourceId,
    );
    return data;
  }

  /** A new, empty deposition (https://developers.zenodo.org/#create). */
  async create(): Promise<Deposition> {
    const { data } = await this.http.json<Deposition>({
      method: 'POST',
      url: 'deposit/depositions',
      json: {},
    });
    return data;
  }

  /**
   * Replaces a deposition's metadata with `metadata` (https://developers.zenodo.org/#update): the API takes the
   * whole metadata, so a caller changing one field sends the others as they were.
   */
  async updateMetadata(id: number, metadata: DepositionMetadata, resourceId: string): Promise<Deposition> {
    const { data } = await this.http.json<Deposition>(
      {
        method: 'PUT',
        url: `deposit/depositions/${id}`,
        json: { metadata },
      },
      resourceId,
    );
    return data;
  }

  /** Deletes an unpublished deposition with its files (https://developers.zenodo.org/#depositions, Delete). */
  async deleteDeposition(id: number): Promise<void> {
    await this.http.remove({ url: `deposit/depositions/${id}` });
  }

  /** Deletes a file of an unpublished deposition (https://developers.zenodo.org/#deposition-files, Delete). */
  async deleteFile(depositionId: number, fileId: string): Promise<void> {
    await this.http.remove({ url: `deposit/depositions/${depositionId}/files/${fileId}` });
  }

  /** https://developers.zenodo.org/#publish */
  async publish(id: number, resourceId: string): Promise<Deposition> {
    const { data } = await this.http.json<Deposition>(
      { method: 'POST', url: `deposit/depositions/${id}/actions/publish` },
      resourceId,
    );
    return data;
  }

  /**
   * Streams a file into a deposition's bucket under `name` (https://developers.zenodo.org/#quickstart-upload),
   * replacing a file of that name; the answer carries Zenodo's md5 of what it stored.
   */
  async putObject(bucketUrl: string, name: string, file: IncomingFile): Promise<BucketObject> {
    const { data } = await this.http.json<BucketObject>({
      method: 'PUT',
      url: `${bucketUrl.replace(/\/$/, '')}/${encodeURIComponent(name)}`,
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.size) },
      body: () => file.open(),
    });
    return data;
  }

  /** A file's bytes from the link Zenodo gave for them, wherever it redirects. */
  async download(url: string): Promise<Readable> {
    return (await this.http.stream({ url, headers: { accept: '*/*' } })).body;
  }
}
