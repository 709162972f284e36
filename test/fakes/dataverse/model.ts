import { createHash, randomBytes } from 'node:crypto';

/**
 * The state of the fake Dataverse, kept as Dataverse keeps it (IQSS/dataverse, src/main/java/edu/harvard/iq/
 * dataverse): a dataset (Dataset) has at most one published version and one draft (DatasetVersion), each
 * version lists its files (FileMetadata: label, directoryLabel) pointing at stored files (DataFile: bytes,
 * content type, one checksum of the installation's type); locks (DatasetLock) refuse edits while they last.
 */

export type ChecksumType = 'MD5' | 'SHA-1' | 'SHA-256' | 'SHA-512';

const NODE_ALGORITHMS: Record<ChecksumType, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-512': 'sha512',
};

export function checksumOf(type: ChecksumType, content: Buffer): string {
  return createHash(NODE_ALGORITHMS[type]).update(content).digest('hex');
}

export interface User {
  id: number;
  token: string;
  /** `identifier` is `@` and this */
  userName: string;
  firstName: string;
  lastName: string;
  email: string;
}

/** A stored file (DataFile); an ingested tabular file keeps what was uploaded as its saved original. */
export interface DataFile {
  id: number;
  content: Buffer;
  contentType: string;
  checksumType: ChecksumType;
  checksum: string;
  storageIdentifier: string;
  createDate: Date;
  /** set once an ingest made the file tabular: the upload's bytes, name and type */
  original?: { content: Buffer; name: string; format: string };
  /** set while an ingest of the file waits to run: when it ends */
  ingestAt?: number;
}

/** A file as a version holds it (FileMetadata). */
export interface FileEntry {
  label: string;
  directoryLabel?: string;
  description: string;
  restricted: boolean;
  dataFileId: number;
}

/** A metadata field as Dataverse keeps and prints it (DatasetFieldsToJson). */
export interface Field {
  typeName: string;
  multiple: boolean;
  typeClass: string;
  value: unknown;
}

export interface Version {
  id: number;
  state: 'DRAFT' | 'RELEASED' | 'DEACCESSIONED';
  versionNumber?: number;
  minorNumber?: number;
  fields: Field[];
  files: FileEntry[];
  createTime: Date;
  lastUpdateTime: Date;
  releaseTime?: Date;
}

export interface Lock {
  type: string;
  user: string;
  start: Date;
  /** when it lifts by itself; never, without */
  until?: number;
}

export interface Dataset {
  id: number;
  persistentId: string;
  /** the collection's alias */
  collection: string;
  /** users with a role that edits it (the one who made it, as the collection's default role gives) */
  editors: Set<number>;
  published?: Version;
  draft?: Version;
  locks: Lock[];
  /** orders the users' listings (release or create date) */
  sortDate: Date;
}

export class DataverseState {
  readonly users = new Map<string, User>();
  readonly datasets = new Map<number, Dataset>();
  readonly files = new Map<number, DataFile>();
  /** aliases of the collections there are */
  readonly collections = new Set<string>(['root']);
  /** the installation's checksum type (:FileFixityChecksumAlgorithm) */
  checksumType: ChecksumType = 'MD5';
  private nextId = 101;
  private lastTime = 0;

  id(): number {
    return this.nextId++;
  }

  /** A time later than every one before, so that orders by date are strict. */
  now(): Date {
    this.lastTime = Math.max(Date.now(), this.lastTime + 1000);
    return new Date(this.lastTime);
  }

  userByToken(token: string): User | undefined {
    return this.users.get(token);
  }

  createDataset(owner: User, collection: string, fields: Field[]): Dataset {
    const now = this.now();
    const id = this.id();
    const dataset: Dataset = {
      id,
      persistentId: `doi:10.5072/FK2/${randomBytes(4).toString('hex').toUpperCase().slice(0, 6)}`,
      collection,
      editors: new Set([owner.id]),
      draft: { id: this.id(), state: 'DRAFT', fields, files: [], createTime: now, lastUpdateTime: now },
      locks: [],
      sortDate: now,
    };
    this.datasets.set(id, dataset);
    return dataset;
  }

  /** The dataset's draft, made from its published version when it has none (as every edit does). */
  draftOf(dataset: Dataset): Version {
    if (!dataset.draft) {
      const source = dataset.published!;
      const now = this.now();
      dataset.draft = {
        id: this.id(),
        state: 'DRAFT',
        fields: structuredClone(source.fields),
        files: source.files.map((file) => ({ ...file })),
        createTime: now,
        lastUpdateTime: now,
      };
    }
    return dataset.draft;
  }

  /** Publishes the draft as the next major version (what a user does at Dataverse; the broker never does). */
  publish(dataset: Dataset): void {
    const draft = this.draftOf(dataset);
    const now = this.now();
    const number = (dataset.published?.versionNumber ?? 0) + 1;
    dataset.published = {
      ...draft,
      state: 'RELEASED',
      versionNumber: number,
      minorNumber: 0,
      releaseTime: now,
    };
    dataset.draft = undefined;
    dataset.sortDate = now;
  }

  storeFile(content: Buffer, contentType: string): DataFile {
    const file: DataFile = {
      id: this.id(),
      content,
      contentType,
      checksumType: this.checksumType,
      checksum: checksumOf(this.checksumType, content),
      storageIdentifier: `local://${Date.now().toString(16)}-${randomBytes(6).toString('hex')}`,
      createDate: this.now(),
    };
    this.files.set(file.id, file);
    return file;
  }

  /** Whether a stored file is held by any version of any dataset. */
  isHeld(dataFileId: number): boolean {
    for (const dataset of this.datasets.values())
      for (const version of [dataset.published, dataset.draft])
        if (version?.files.some((file) => file.dataFileId === dataFileId)) return true;
    return false;
  }

  clear(): void {
    this.users.clear();
    this.datasets.clear();
    this.files.clear();
    this.collections.clear();
    this.collections.add('root');
    this.checksumType = 'MD5';
  }
}

/** The versions a user may see: a dataset's draft only for its editors (ViewUnpublishedDataset). */
export function latestVisible(dataset: Dataset, user: User | null): Version | undefined {
  if (dataset.draft && user && dataset.editors.has(user.id)) return dataset.draft;
  return dataset.published;
}

export function citation(version: Version, typeName: string): Field | undefined {
  return version.fields.find((field) => field.typeName === typeName);
}

export function titleOf(version: Version): string {
  const value = citation(version, 'title')?.value;
  return typeof value === 'string' ? value : '';
}
