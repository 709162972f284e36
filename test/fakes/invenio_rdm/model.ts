import { createHash, randomUUID } from 'node:crypto';

/**
 * The state of the fake InvenioRDM instance and the JSON it answers with, as the REST API reference
 * describes records, drafts and their files (https://inveniordm.docs.cern.ch/reference/rest_api_drafts_records/)
 * and as the server serialises them (inveniosoftware/invenio-rdm-records, invenio_rdm_records/services/config.py
 * `links_item`: `self`, `files`, `versions`, `draft` of a published record, `record` and `publish` of a draft;
 * invenio-records-resources, services/files/config.py and schema.py: a file entry's `key`, `size`, `status`,
 * `checksum` as `md5:<hex>` (invenio-files-rest computes it so) and its `self`, `content` and `commit` links).
 */

export interface StoredFile {
  key: string;
  file_id: string;
  content: Buffer;
  /** `pending` from the initialisation until the commit, then `completed` */
  status: 'pending' | 'completed';
  created: string;
  updated: string;
}

/** One version's metadata and files: a published version's, or a draft's. */
export interface VersionState {
  metadata: Record<string, unknown>;
  files: StoredFile[];
}

export interface StoredRecord {
  /** InvenioRDM's record ids: five and five characters of Crockford's base32, e.g. `a1b2c-3d4e5` */
  id: string;
  owner: number;
  /** the concept record all versions share */
  parent: string;
  versionIndex: number;
  created: string;
  updated: string;
  /** the published version, null until published */
  published: VersionState | null;
  /** a draft: a new record's, a new version's, or an edit of the published version's metadata */
  draft: VersionState | null;
  /** deleted: the record answers 410 with a tombstone */
  deleted: boolean;
}

export interface User {
  id: number;
  token: string;
  username: string;
  fullName: string;
}

export function timestamp(date = new Date()): string {
  return date.toISOString().replace('Z', '+00:00');
}

export function storedFile(
  key: string,
  content: Buffer,
  status: StoredFile['status'] = 'completed',
): StoredFile {
  const now = timestamp();
  return { key, file_id: randomUUID(), content, status, created: now, updated: now };
}

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

export class InvenioState {
  readonly records = new Map<string, StoredRecord>();
  readonly users = new Map<string, User>();
  private lastCreated = 0;
  private counter = 0;

  /** A new record id in InvenioRDM's shape (invenio-rdm-records' recid provider: base32, `xxxxx-xxxxx`). */
  private newId(): string {
    let n = ++this.counter * 7919 + 1_000_003;
    let text = '';
    for (let i = 0; i < 10; i++) {
      text += BASE32[n % 32];
      n = Math.floor(n / 32) + i * 13;
    }
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  }

  /** A new record of `owner` holding a draft, created after every one before it. */
  create(owner: number, metadata: Record<string, unknown>, parent?: StoredRecord): StoredRecord {
    this.lastCreated = Math.max(Date.now(), this.lastCreated + 1);
    const now = timestamp(new Date(this.lastCreated));
    const id = this.newId();
    const record: StoredRecord = {
      id,
      owner,
      parent: parent?.parent ?? this.newId(),
      versionIndex: parent ? parent.versionIndex + 1 : 1,
      created: now,
      updated: now,
      published: null,
      draft: { metadata, files: [] },
      deleted: false,
    };
    this.records.set(id, record);
    return record;
  }

  /** The newest version of a concept record (what the user's search lists, as `versions.is_latest_draft`). */
  isLatest(record: StoredRecord): boolean {
    return ![...this.records.values()].some(
      (other) => other.parent === record.parent && other.versionIndex > record.versionIndex,
    );
  }

  touch(record: StoredRecord): void {
    record.updated = timestamp();
  }

  clear(): void {
    this.records.clear();
    this.users.clear();
  }
}

export function md5Checksum(content: Buffer): string {
  return `md5:${createHash('md5').update(content).digest('hex')}`;
}

/** A file entry (invenio-records-resources' FileSchema) with its links below `filesUrl`. */
export function fileJson(filesUrl: string, file: StoredFile): Record<string, unknown> {
  const self = `${filesUrl}/${encodeURIComponent(file.key)}`;
  return {
    key: file.key,
    file_id: file.file_id,
    created: file.created,
    updated: file.updated,
    status: file.status,
    ...(file.status === 'completed'
      ? {
          size: file.content.length,
          checksum: md5Checksum(file.content),
          mimetype: 'application/octet-stream',
        }
      : {}),
    storage_class: 'L',
    metadata: null,
    links: { self, content: `${self}/content`, commit: `${self}/commit` },
  };
}

/** A file listing (GET .../files): `enabled`, `entries`, `order` and the listing's own link. */
export function filesJson(filesUrl: string, files: StoredFile[]): Record<string, unknown> {
  return {
    enabled: true,
    links: { self: filesUrl },
    entries: files.map((file) => fileJson(filesUrl, file)),
    default_preview: null,
    order: [],
  };
}

/**
 * A record as the API answers it: the draft (`is_draft: true`) when `draft` is asked for, else the published
 * version. The owner is `parent.access.owned_by.user` (RDM's parent schema).
 */
export function recordJson(api: string, record: StoredRecord, draft: boolean): Record<string, unknown> {
  const version = draft ? record.draft : record.published;
  if (!version) throw new Error(`record ${record.id} has no ${draft ? 'draft' : 'published version'}`);
  const base = `${api}/records/${record.id}`;
  const self = draft ? `${base}/draft` : base;
  const isPublished = record.published !== null;
  return {
    id: record.id,
    created: record.created,
    updated: record.updated,
    revision_id: 1,
    is_draft: draft,
    is_published: isPublished,
    status: draft
      ? isPublished
        ? 'published'
        : record.versionIndex > 1
          ? 'new_version_draft'
          : 'draft'
      : 'published',
    metadata: version.metadata,
    access: { record: 'public', files: 'public', embargo: { active: false } },
    files: { enabled: true, count: version.files.length },
    parent: { id: record.parent, access: { owned_by: { user: String(record.owner) } } },
    versions: { index: record.versionIndex, is_latest: true, is_latest_draft: true },
    links: {
      self,
      self_html: draft
        ? `${api.replace(/\/api$/, '')}/uploads/${record.id}`
        : `${api.replace(/\/api$/, '')}/records/${record.id}`,
      files: `${self}/files`,
      versions: `${base}/versions`,
      ...(draft
        ? { publish: `${self}/actions/publish`, ...(isPublished ? { record: base } : {}) }
        : { draft: `${base}/draft`, latest: `${base}/versions/latest` }),
    },
  };
}
