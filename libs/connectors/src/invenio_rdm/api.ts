import type { Readable } from 'node:stream';
import type { IncomingFile } from '../connector';
import { ConnectorError } from '../connector-error';
import type { UpstreamClient } from '../http';
import type {
  FileEntry,
  FileListing,
  InvenioRecord,
  InvenioUser,
  RecordMetadata,
  SearchPage,
} from './entities';

/** Newest first (RDM_SORT_OPTIONS' `newest`, one of RDM_SEARCH_DRAFTS' sorts in invenio-rdm-records' config). */
const NEWEST_FIRST = 'newest';

export interface UserRecordsQuery {
  page: number;
  size: number;
  /** Elasticsearch's query-string syntax */
  q?: string;
}

/** A link the instance answered with, or a 502 naming what it left out. */
export function linkOf(
  links: Record<string, string | undefined> | undefined,
  name: string,
  of: string,
): string {
  const link = links?.[name];
  if (!link) throw new ConnectorError(502, `InvenioRDM gave no '${name}' link for ${of}.`);
  return link;
}

/**
 * An InvenioRDM instance's REST API as one user reaches it (https://inveniordm.docs.cern.ch/reference/rest_api_index/).
 * Only the entry points are built from the base URL (the user's records, a record or draft by id, a new
 * draft, a user's profile); everything else goes to the `links` the instance answered with. Each
 * `resourceId` names the resource a 404 is about.
 */
export class InvenioApi {
  constructor(private readonly http: UpstreamClient) {}

  /** The user's records and drafts, latest versions (https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/#search-user-records). */
  async userRecords(query: UserRecordsQuery): Promise<SearchPage<InvenioRecord>> {
    const { data } = await this.http.json<SearchPage<InvenioRecord>>({
      url: 'user/records',
      query: { ...query, sort: NEWEST_FIRST },
    });
    return data;
  }

  /** A record's draft, which only those who may edit it read (#get-a-draft-record). */
  async draft(id: string, resourceId: string): Promise<InvenioRecord> {
    const { data } = await this.http.json<InvenioRecord>(
      { url: `records/${encodeURIComponent(id)}/draft` },
      resourceId,
    );
    return data;
  }

  /** A published record, anyone's that is public (#get-a-published-record). */
  async record(id: string, resourceId: string): Promise<InvenioRecord> {
    const { data } = await this.http.json<InvenioRecord>(
      { url: `records/${encodeURIComponent(id)}` },
      resourceId,
    );
    return data;
  }

  /** A new draft (#create-a-draft-record). */
  async createDraft(metadata: RecordMetadata): Promise<InvenioRecord> {
    const { data } = await this.http.json<InvenioRecord>({
      method: 'POST',
      url: 'records',
      json: { metadata, files: { enabled: true } },
    });
    return data;
  }

  /** Replaces a draft with `draft` at its `self` link (#update-a-draft-record takes the whole draft). */
  async updateDraft(draft: InvenioRecord, changed: Partial<InvenioRecord>): Promise<InvenioRecord> {
    const { access, files, custom_fields, pids, metadata } = { ...draft, ...changed };
    const { data } = await this.http.json<InvenioRecord>(
      {
        method: 'PUT',
        url: linkOf(draft.links, 'self', `draft ${draft.id}`),
        json: { access, files, custom_fields, pids, metadata },
        idempotent: true,
      },
      draft.id,
    );
    return data;
  }

  /** Discards a draft: a new record's goes whole (#deletediscard-a-draft-record). */
  async deleteDraft(draft: InvenioRecord): Promise<void> {
    await this.http.remove({ url: linkOf(draft.links, 'self', `draft ${draft.id}`) });
  }

  /** A draft of a published record, to edit its metadata (#edit-a-published-record...): POST to its `draft` link. */
  async editDraft(record: InvenioRecord): Promise<InvenioRecord> {
    const { data } = await this.http.json<InvenioRecord>(
      { method: 'POST', url: linkOf(record.links, 'draft', `record ${record.id}`) },
      record.id,
    );
    return data;
  }

  /** A new version's draft of a published record: POST to its `versions` link (#create-a-new-version). */
  async newVersion(record: InvenioRecord): Promise<InvenioRecord> {
    const { data } = await this.http.json<InvenioRecord>(
      { method: 'POST', url: linkOf(record.links, 'versions', `record ${record.id}`) },
      record.id,
    );
    return data;
  }

  /**
   * The previous version's files into a new version's draft (invenio-drafts-resources' `item-files-import`
   * action, `<draft>/actions/files-import`, which the draft's links do not name).
   */
  async importFiles(draft: InvenioRecord): Promise<void> {
    const self = linkOf(draft.links, 'self', `draft ${draft.id}`);
    await this.http.json(
      { method: 'POST', url: `${self.replace(/\/$/, '')}/actions/files-import` },
      draft.id,
    );
  }

  /** The files at a record's or draft's `files` link. */
  async files(record: InvenioRecord): Promise<FileEntry[]> {
    const { data } = await this.http.json<FileListing>(
      { url: linkOf(record.links, 'files', `record ${record.id}`) },
      record.id,
    );
    return data.entries ?? [];
  }

  /** Step 1 of a draft file's upload: its key, initialised at the draft's `files` link (#start-draft-file-uploads). */
  async initFile(draft: InvenioRecord, key: string): Promise<FileEntry> {
    const { data } = await this.http.json<FileListing>(
      { method: 'POST', url: linkOf(draft.links, 'files', `draft ${draft.id}`), json: [{ key }] },
      draft.id,
    );
    const entry = data.entries.find((candidate) => candidate.key === key);
    if (!entry) throw new ConnectorError(502, `InvenioRDM did not initialise the file '${key}'.`);
    return entry;
  }

  /** Step 2: the bytes, streamed to the entry's `content` link (#upload-a-draft-files-content). */
  async putContent(entry: FileEntry, file: IncomingFile): Promise<void> {
    await this.http.json({
      method: 'PUT',
      url: linkOf(entry.links, 'content', `file '${entry.key}'`),
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.size) },
      body: () => file.open(),
      idempotent: true,
    });
  }

  /** Step 3: the commit at the entry's `commit` link, answering the stored file with its checksum (#complete-a-draft-file-upload). */
  async commitFile(entry: FileEntry): Promise<FileEntry> {
    const { data } = await this.http.json<FileEntry>({
      method: 'POST',
      url: linkOf(entry.links, 'commit', `file '${entry.key}'`),
    });
    return data;
  }

  /** Deletes a draft file at its `self` link (#delete-a-draft-file). */
  async deleteFile(entry: FileEntry | string): Promise<void> {
    const url = typeof entry === 'string' ? entry : linkOf(entry.links, 'self', `file '${entry.key}'`);
    await this.http.remove({ url });
  }

  /** A user's public profile (invenio-users-resources, GET /users/<id>). */
  async user(id: string): Promise<InvenioUser> {
    const { data } = await this.http.json<InvenioUser>({ url: `users/${encodeURIComponent(id)}` });
    return data;
  }

  /** A file's bytes from its `content` link, wherever it redirects (a redirect to storage gets no token). */
  async download(url: string): Promise<Readable> {
    return (await this.http.stream({ url, headers: { accept: '*/*' } })).body;
  }
}
