import { createHash, randomUUID } from 'node:crypto';

/**
 * The state of the fake Zenodo and the JSON it answers with, as https://developers.zenodo.org/ describes the
 * deposit API (#representation, #deposition-files, #quickstart-upload) and as Zenodo's own code serialises it
 * today (zenodo/zenodo-rdm, site/zenodo_rdm/legacy/serializers: deposition files carry their md5 without a
 * prefix, bucket objects with `md5:`; a file's download link is `/records/<id>/draft/files/<key>/content`).
 */

export interface StoredFile {
  /** Zenodo's file id, a UUID; a file replaced through the bucket gets a new one */
  id: string;
  key: string;
  content: Buffer;
  md5: string;
}

export interface StoredDeposition {
  id: number;
  owner: number;
  /** ISO timestamps; `created` orders the user's depositions */
  created: string;
  modified: string;
  metadata: Record<string, unknown>;
  submitted: boolean;
  /** `unsubmitted`, `inprogress` or `done` */
  state: string;
  bucket: string;
  files: StoredFile[];
  /** deleted: Zenodo answers 410 for it */
  removed: boolean;
}

/** Zenodo's timestamps: ISO 8601 with an explicit UTC offset (https://developers.zenodo.org/#responses). */
export function timestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

export function storedFile(key: string, content: Buffer): StoredFile {
  return { id: randomUUID(), key, content, md5: createHash('md5').update(content).digest('hex') };
}

/** Record ids have 8 digits today; conceptrecid is the one before each. */
export class ZenodoState {
  readonly depositions = new Map<number, StoredDeposition>();
  private nextId = 10_000_002;
  private lastCreated = 0;

  /** A new deposition of `owner`, created after every one before it. */
  create(owner: number, metadata: Record<string, unknown> = {}): StoredDeposition {
    this.lastCreated = Math.max(Date.now(), this.lastCreated + 1);
    const now = timestamp(new Date(this.lastCreated));
    const deposition: StoredDeposition = {
      id: this.nextId,
      owner,
      created: now,
      modified: now,
      metadata,
      submitted: false,
      state: 'unsubmitted',
      bucket: randomUUID(),
      files: [],
      removed: false,
    };
    this.nextId += 2;
    this.depositions.set(deposition.id, deposition);
    return deposition;
  }

  touch(deposition: StoredDeposition): void {
    deposition.modified = timestamp(new Date());
  }

  byBucket(bucket: string): StoredDeposition | undefined {
    return [...this.depositions.values()].find((deposition) => deposition.bucket === bucket);
  }

  clear(): void {
    this.depositions.clear();
  }
}

/** A deposition file resource (https://developers.zenodo.org/#deposition-files). */
export function fileJson(api: string, deposition: StoredDeposition, file: StoredFile): object {
  const content = deposition.submitted
    ? `${api}/records/${deposition.id}/files/${encodeURIComponent(file.key)}/content`
    : `${api}/records/${deposition.id}/draft/files/${encodeURIComponent(file.key)}/content`;
  return {
    id: file.id,
    filename: file.key,
    filesize: file.content.length,
    checksum: file.md5,
    links: { self: `${api}/deposit/depositions/${deposition.id}/files/${file.id}`, download: content },
  };
}

/** A deposition resource (https://developers.zenodo.org/#deposit), with the links the quickstart shows. */
export function depositionJson(api: string, deposition: StoredDeposition): object {
  const self = `${api}/deposit/depositions/${deposition.id}`;
  const html = api.replace(/\/api$/, '');
  const published = deposition.submitted
    ? {
        doi: `10.5072/zenodo.${deposition.id}`,
        doi_url: `https://doi.org/10.5072/zenodo.${deposition.id}`,
        record_url: `${html}/records/${deposition.id}`,
      }
    : {};
  return {
    conceptrecid: String(deposition.id - 1),
    created: deposition.created,
    modified: deposition.modified,
    id: deposition.id,
    record_id: deposition.id,
    owner: deposition.owner,
    state: deposition.state,
    submitted: deposition.submitted,
    title: typeof deposition.metadata.title === 'string' ? deposition.metadata.title : '',
    ...published,
    metadata: {
      ...deposition.metadata,
      prereserve_doi: { doi: `10.5072/zenodo.${deposition.id}`, recid: deposition.id },
    },
    files: deposition.files.map((file) => fileJson(api, deposition, file)),
    links: {
      self,
      html: `${html}/deposit/${deposition.id}`,
      files: `${self}/files`,
      bucket: `${api}/files/${deposition.bucket}`,
      publish: `${self}/actions/publish`,
      edit: `${self}/actions/edit`,
      discard: `${self}/actions/discard`,
      newversion: `${self}/actions/newversion`,
      latest_draft: self,
      latest_draft_html: `${html}/deposit/${deposition.id}`,
    },
  };
}

/**
 * A published record as `GET /records/{id}` answers it (https://developers.zenodo.org/#records, "Retrieve"):
 * the docs do not describe its fields, so the fake follows zenodo-rdm's ZenodoSchema (site/zenodo_rdm/legacy/
 * serializers/schemas/zenodojson.py), which answers `Accept: application/json` (site/zenodo_rdm/resources.py):
 * the metadata in the record's own form (`resource_type` {type, title}, `license` {id}, `relations`), files
 * with `key`, `size`, `checksum` as `md5:<hex>` and their bytes at `links.self`, and the owners by id.
 */
export function recordJson(api: string, deposition: StoredDeposition): object {
  const html = api.replace(/\/api$/, '');
  const self = `${api}/records/${deposition.id}`;
  const { upload_type: uploadType, license, ...metadata } = deposition.metadata;
  const type = typeof uploadType === 'string' ? uploadType : 'other';
  return {
    created: deposition.created,
    modified: deposition.modified,
    updated: deposition.modified,
    id: deposition.id,
    recid: String(deposition.id),
    revision: 3,
    conceptrecid: String(deposition.id - 1),
    doi: `10.5072/zenodo.${deposition.id}`,
    conceptdoi: `10.5072/zenodo.${deposition.id - 1}`,
    doi_url: `https://doi.org/10.5072/zenodo.${deposition.id}`,
    title: typeof metadata.title === 'string' ? metadata.title : '',
    metadata: {
      ...metadata,
      doi: `10.5072/zenodo.${deposition.id}`,
      access_right: 'open',
      resource_type: { type, title: type[0].toUpperCase() + type.slice(1) },
      ...(typeof license === 'string' ? { license: { id: license } } : {}),
      relations: {
        version: [
          { index: 0, is_last: true, parent: { pid_type: 'recid', pid_value: String(deposition.id - 1) } },
        ],
      },
    },
    links: {
      self,
      self_html: `${html}/records/${deposition.id}`,
      html: `${html}/records/${deposition.id}`,
      doi: `https://doi.org/10.5072/zenodo.${deposition.id}`,
      files: `${self}/files`,
      archive: `${self}/files-archive`,
    },
    files: deposition.files.map((file) => ({
      id: file.id,
      key: file.key,
      size: file.content.length,
      checksum: `md5:${file.md5}`,
      links: { self: `${self}/files/${encodeURIComponent(file.key)}/content` },
    })),
    owners: [{ id: deposition.owner }],
    status: 'published',
    state: 'done',
    submitted: true,
    stats: { downloads: 0, unique_downloads: 0, views: 0, unique_views: 0, volume: 0 },
    swh: {},
  };
}

/** A bucket object (https://developers.zenodo.org/#quickstart-upload, the new files API's answer). */
export function bucketObjectJson(api: string, deposition: StoredDeposition, file: StoredFile): object {
  const self = `${api}/files/${deposition.bucket}/${encodeURIComponent(file.key)}`;
  return {
    key: file.key,
    mimetype: 'application/octet-stream',
    checksum: `md5:${file.md5}`,
    version_id: randomUUID(),
    size: file.content.length,
    created: deposition.modified,
    updated: deposition.modified,
    links: { self, version: `${self}?versionId=${file.id}`, uploads: `${self}?uploads` },
    is_head: true,
    delete_marker: false,
  };
}
