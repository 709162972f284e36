import { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error';
import {
  cleanUpstreamText,
  readJson,
  type ResponseBody,
  type UpstreamClient,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../http';
import {
  type AddedFiles,
  type Answer,
  type DatasetLock,
  type DatasetPermissions,
  type DatasetVersion,
  type DataverseUser,
  type FileMetadata,
  type MetadataField,
  type MyDataAnswer,
  type UploadUrls,
} from './entities';
import { DatasetLocked, LockWait } from './locks';
import type { FormBody } from './multipart-body';

/** The page size of the file listings the connector reads whole (walks, details). */
const FILES_PAGE_SIZE = 1000;
/** What an error body is read for: its message, far shorter. */
const ERROR_BYTES = 16 << 10;
/**
 * The roles whose datasets are the user's projects (mydata/retrieve's `role_ids`): Admin (1), Contributor (6)
 * and Curator (7), the standard roles that edit a dataset (https://guides.dataverse.org/en/latest/api/native-api.html#mydata).
 * File Downloader and Member only read.
 */
const EDITING_ROLES = [1, 6, 7];
/** Every state but Deaccessioned (mydata/retrieve's `published_states`). */
const LISTED_STATES = ['Published', 'Unpublished', 'Draft', 'In Review'];

/**
 * Dataverse's native API as one user reaches it (https://guides.dataverse.org/en/latest/api/native-api.html),
 * with its Data Access API for files' bytes (https://guides.dataverse.org/en/latest/api/dataaccess.html).
 * Paths are relative to `api_url`. Each `resourceId` names the resource a 404 is about. Every edit of a
 * dataset goes through `edit`, which waits out a dataset lock (LockWait).
 */
export class DataverseApi {
  private readonly lockWait: LockWait;

  constructor(
    private readonly http: UpstreamClient,
    maxWaitMs: number,
  ) {
    this.lockWait = new LockWait((datasetId) => this.locks(datasetId), maxWaitMs);
  }

  /** The token's user (https://guides.dataverse.org/en/latest/api/native-api.html#get-user-information-in-json-format). */
  me(): Promise<DataverseUser> {
    return this.call<DataverseUser>({ url: 'users/:me' });
  }

  /**
   * The checksum type the installation gives files it stores (#get-fixity-algorithm): `MD5`, `SHA-1`,
   * `SHA-256` or `SHA-512`. Answered as a message, in `data.message` or, where the installation unifies its
   * messages, beside the data.
   */
  async fixityAlgorithm(): Promise<string> {
    const response = await this.http.request({ url: 'files/fixityAlgorithm' });
    if (response.status >= 300) throw await this.failure(response);
    const answer = await readJson<Answer<{ message?: string } | null>>(response, this.http.upstream.name);
    const type = answer.data?.message ?? answer.message;
    if (typeof type !== 'string') throw new ConnectorError(502, 'Dataverse did not name its checksum type.');
    return type;
  }

  /**
   * One page of the datasets the user has an editing role on, newest first (#mydata); its page size is
   * Dataverse's own (ten). `searchTerm` is Solr query syntax.
   */
  async myData(page: number, searchTerm?: string): Promise<MyDataAnswer> {
    const query = new URLSearchParams({ dvobject_types: 'Dataset', selected_page: String(page) });
    for (const role of EDITING_ROLES) query.append('role_ids', String(role));
    for (const state of LISTED_STATES) query.append('published_states', state);
    if (searchTerm) query.set('mydata_search_term', searchTerm);
    const response = await this.http.request({ url: `mydata/retrieve?${query.toString()}` });
    if (response.status >= 300) throw await this.failure(response);
    return readJson<MyDataAnswer>(response, this.http.upstream.name);
  }

  /**
   * The latest version of a dataset the user may see, its draft first (#dataset-version-specifiers, `:latest`),
   * without its files; a deaccessioned one too, so that it can be told from one that never was.
   */
  version(datasetId: string, resourceId: string): Promise<DatasetVersion> {
    return this.call<DatasetVersion>(
      {
        url: `datasets/${datasetId}/versions/:latest`,
        query: { excludeFiles: true, includeDeaccessioned: true },
      },
      resourceId,
    );
  }

  /** The same, of the dataset a persistent id names (`doi:...`, `hdl:...`; #get-json-representation-of-a-dataset). */
  versionByPersistentId(persistentId: string): Promise<DatasetVersion> {
    return this.call<DatasetVersion>(
      {
        url: 'datasets/:persistentId/versions/:latest',
        query: { persistentId, excludeFiles: true, includeDeaccessioned: true },
      },
      persistentId,
    );
  }

  /** Every file of the latest version the user may see, page after page (#list-files-in-a-dataset). */
  async *files(datasetId: string, resourceId: string): AsyncGenerator<FileMetadata> {
    for (let offset = 0; ; offset += FILES_PAGE_SIZE) {
      const response = await this.http.request({
        url: `datasets/${datasetId}/versions/:latest/files`,
        query: { limit: FILES_PAGE_SIZE, offset, orderCriteria: 'NameAZ' },
      });
      if (response.status >= 300) throw await this.failure(response, resourceId);
      const page = await readJson<Answer<FileMetadata[]>>(response, this.http.upstream.name);
      yield* page.data;
      const total = page.totalCount ?? offset + page.data.length;
      if (page.data.length < FILES_PAGE_SIZE || offset + page.data.length >= total) return;
    }
  }

  /** A file as the latest version the user may see holds it, with that version (#get-json-representation-of-a-file). */
  file(fileId: string, resourceId: string): Promise<FileMetadata> {
    return this.call<FileMetadata>(
      { url: `files/${fileId}`, query: { returnDatasetVersion: true } },
      resourceId,
    );
  }

  /**
   * What the user may do with a dataset (#get-user-permissions-on-a-dataset); null where the installation has
   * no such call (before 6.1), so nothing is known beforehand.
   */
  async permissions(datasetId: string): Promise<DatasetPermissions | null> {
    const response = await this.http.request({ url: `datasets/${datasetId}/userPermissions` });
    if (response.status === 404 || response.status === 405) {
      await response.body.dump();
      return null;
    }
    if (response.status >= 300) throw await this.failure(response, datasetId);
    return (await readJson<Answer<DatasetPermissions>>(response, this.http.upstream.name)).data;
  }

  /** The dataset's locks; none when it is not locked (#manage-locks-on-a-specific-dataset). */
  locks(datasetId: string): Promise<DatasetLock[]> {
    return this.call<DatasetLock[]>({ url: `datasets/${datasetId}/locks` }, datasetId);
  }

  /** A new draft dataset in a collection (#create-a-dataset-in-a-dataverse-collection): 201 with its ids. */
  createDataset(collection: string, datasetVersion: object): Promise<{ id: number; persistentId?: string }> {
    return this.call({
      method: 'POST',
      url: `dataverses/${encodeURIComponent(collection)}/datasets`,
      json: { datasetVersion },
    });
  }

  /** Replaces the given fields of the dataset's draft, making one when there is none (#edit-dataset-metadata). */
  async editMetadata(datasetId: string, fields: MetadataField[], resourceId: string): Promise<void> {
    await this.edit(datasetId, () =>
      this.call<unknown>(
        {
          method: 'PUT',
          url: `datasets/${datasetId}/editMetadata`,
          query: { replace: true },
          json: { fields },
          idempotent: true,
        },
        resourceId,
      ),
    );
  }

  /** Deletes an unpublished dataset with its files (#delete-unpublished-dataset); one gone counts as deleted. */
  async deleteDataset(datasetId: string): Promise<void> {
    await this.edit(datasetId, () => this.remove(`datasets/${datasetId}`));
  }

  /** Deletes a file from the dataset's draft (#deleting-files): forever where it was never published. */
  async deleteFile(datasetId: string, fileId: string): Promise<void> {
    await this.edit(datasetId, () => this.remove(`files/${fileId}`));
  }

  /** Adds a file to the dataset's draft (#add-a-file-to-a-dataset): its bytes, or a direct upload's `jsonData`. */
  addFile(datasetId: string, form: FormBody, resourceId: string): Promise<FileMetadata> {
    return this.edit(datasetId, () => this.sendForm(`datasets/${datasetId}/add`, form, resourceId));
  }

  /** Replaces a file of the dataset's draft with new bytes (#replacing-files); the new file has a new id. */
  replaceFile(datasetId: string, fileId: string, form: FormBody, resourceId: string): Promise<FileMetadata> {
    return this.edit(datasetId, () => this.sendForm(`files/${fileId}/replace`, form, resourceId));
  }

  /**
   * Where to send a file's bytes directly to storage
   * (https://guides.dataverse.org/en/latest/developers/s3-direct-upload-api.html); null when the dataset's
   * store does not offer it ("Direct upload not supported for files in this dataset").
   */
  async uploadUrls(datasetId: string, size: number, resourceId: string): Promise<UploadUrls | null> {
    const response = await this.http.request({ url: `datasets/${datasetId}/uploadurls`, query: { size } });
    if (response.status === 404) {
      const text = await readSome(response.body, ERROR_BYTES);
      if (/direct upload/i.test(messageOf(text))) return null;
      throw await this.failureOf(response, text, resourceId);
    }
    if (response.status >= 300) throw await this.failure(response, resourceId);
    return (await readJson<Answer<UploadUrls>>(response, this.http.upstream.name)).data;
  }

  /**
   * A file's bytes as deposited, through the Data Access API
   * (https://guides.dataverse.org/en/latest/api/dataaccess.html#basic-file-access), wherever it redirects (a
   * store may hand out a presigned URL, which gets no token). Every file is asked for as `format=original`:
   * an ingested tabular file then comes as its saved original, and any other file as it is, since Dataverse
   * ignores that format for a file that is not tabular (Access.java in IQSS/dataverse, issue #6972). Asking
   * so whatever the file was when it was listed keeps a file that finishes its ingest between the listing and
   * the download from arriving in its archival form.
   */
  async download(fileId: string): Promise<Readable> {
    const request: UpstreamRequest = {
      url: `access/datafile/${fileId}`,
      query: { format: 'original' },
      headers: { accept: '*/*' },
    };
    return (await this.http.stream(request)).body;
  }

  /** A request to storage or to the API that takes bytes, answered with its headers (a part's ETag). */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const response = await this.http.request(request);
    if (response.status >= 300) throw await this.failure(response);
    await response.body.dump();
    return response;
  }

  /** An absolute URL of the installation from a path Dataverse gives from its root (`/api/datasets/mpload?...`). */
  fromRoot(path: string): string {
    return new URL(path, this.http.upstream.baseUrl.origin).toString();
  }

  /** An edit of a dataset, done once no lock stands in its way (LockWait). */
  private edit<T>(datasetId: string, change: () => Promise<T>): Promise<T> {
    return this.lockWait.edit(datasetId, change);
  }

  /** Deletes what `url` names; what is gone already (404, 410) counts as deleted. */
  private async remove(url: string): Promise<void> {
    const response = await this.http.request({ method: 'DELETE', url });
    if (response.status >= 300 && response.status !== 404 && response.status !== 410)
      throw await this.failure(response);
    await response.body.dump();
  }

  private async sendForm(url: string, form: FormBody, resourceId: string): Promise<FileMetadata> {
    const added = await this.call<AddedFiles>(
      { method: 'POST', url, headers: form.headers, body: () => form.open() },
      resourceId,
    );
    const [file] = added.files ?? [];
    if (!file) throw new ConnectorError(502, 'Dataverse answered the upload without the file it stored.');
    return file;
  }

  /** A successful answer's `data`; any other answer throws what `failure` makes of it. */
  private async call<T>(request: UpstreamRequest, resourceId?: string): Promise<T> {
    const response = await this.http.request(request);
    if (response.status >= 300) throw await this.failure(response, resourceId);
    return (await readJson<Answer<T>>(response, this.http.upstream.name)).data;
  }

  /**
   * What an unsuccessful answer means. Dataverse answers a token it does not know with 401 "Bad API key"
   * (ApiKeyAuthMechanism), but also a known user's missing permission with 401 "User ... is not permitted to
   * perform requested action." (AbstractApiBean.execCommand): that is a 403 here, never a bad token. An edit
   * refused for a lock is 403 "Dataset cannot be edited due to dataset lock." (PermissionServiceBean), and an
   * upload refused for one 400 "Failed to add file to dataset." (AddReplaceFileHelper), which may also mean
   * something else (LockWait tells). The rest is the shared client's reading (UpstreamClient.failure).
   */
  private async failure(response: UpstreamResponse, resourceId?: string): Promise<ConnectorError> {
    return this.failureOf(response, await readSome(response.body, ERROR_BYTES), resourceId);
  }

  /** The same, of an answer whose body (`text`) was read already. */
  private async failureOf(
    response: UpstreamResponse,
    text: Buffer,
    resourceId?: string,
  ): Promise<ConnectorError> {
    const message = messageOf(text);
    if (response.status === 401 && /not permitted/i.test(message)) return ConnectorError.forbidden();
    // other refusals of a known user come as 401 too ("Only superusers can delete published datasets")
    if (response.status === 401 && message !== '' && !/bad api key/i.test(message))
      return new ConnectorError(403, `Dataverse refused: ${cleanUpstreamText(message)}`);
    const otherwise = await this.http.failure({ ...response, body: replay(text) }, resourceId);
    if (response.status === 403 && /dataset lock/i.test(message))
      return new DatasetLocked(message, true, otherwise);
    if (response.status === 400 && /failed to add file/i.test(message))
      return new DatasetLocked(message, false, otherwise);
    return otherwise;
  }
}

/** The first `limit` bytes of a body, which is released. */
async function readSome(body: ResponseBody, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= limit) break;
    }
  } catch {
    // what arrived is all there is to read
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

function messageOf(text: Buffer): string {
  try {
    const parsed = JSON.parse(text.toString('utf8')) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : '';
  } catch {
    return '';
  }
}

/** A body read already, to be read again. */
function replay(bytes: Buffer): ResponseBody {
  return Object.assign(Readable.from([bytes]), { dump: async () => undefined });
}
