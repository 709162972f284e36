import { createHash } from 'node:crypto';

/**
 * What the fake OSF holds: users with their tokens, nodes (projects and components) with contributors and
 * tags, and each node's storage providers as trees of folders and versioned files, as OSF's models keep them
 * (https://developer.osf.io/#tag/Nodes, https://developer.osf.io/#tag/Files).
 */

export interface FakeUser {
  id: string;
  fullName: string;
  token: string;
  registered: Date;
  /** the storage region of the projects the user makes (addons/osfstorage/models.py, UserSettings.default_region) */
  defaultRegion: string;
}

export interface FakeNode {
  id: string;
  title: string;
  category: string;
  description: string;
  public: boolean;
  tags: string[];
  parent: FakeNode | null;
  contributors: FakeUser[];
  created: Date;
  modified: Date;
  deleted: boolean;
  /** each storage provider's root folder, by provider name; osfstorage first */
  storages: Map<string, FakeFolder>;
  /** the id of the storage region OSF Storage keeps the node's files in (`us`, `de-1`, ...) */
  region: string;
}

interface EntryBase {
  id: string;
  name: string;
  node: FakeNode;
  provider: string;
  /** null for a provider's root folder */
  parent: FakeFolder | null;
  tags: string[];
}

export interface FakeFolder extends EntryBase {
  kind: 'folder';
  children: FakeEntry[];
}

export interface FakeVersion {
  content: Buffer;
  md5: string;
  sha256: string;
  created: Date;
}

export interface FakeFile extends EntryBase {
  kind: 'file';
  /** oldest first */
  versions: FakeVersion[];
}

export type FakeEntry = FakeFolder | FakeFile;

export const OSF_STORAGE = 'osfstorage';
/** OSF's default storage region (DEFAULT_REGION_ID in addons/osfstorage/settings/defaults.py) */
export const DEFAULT_REGION = 'us';
const GUID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export class OsfModel {
  readonly users: FakeUser[] = [];
  readonly nodes = new Map<string, FakeNode>();
  readonly entries = new Map<string, FakeEntry>();
  /** stored bytes by sha256, as the storage behind osfstorage keeps them */
  readonly blobs = new Map<string, Buffer>();
  private clock = Date.UTC(2024, 0, 1);
  private serial = 0;

  /** A moment later than every one before, so that orders by date are strict. */
  now(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }

  addUser(fullName: string, token: string): FakeUser {
    const user = { id: this.guid(), fullName, token, registered: this.now(), defaultRegion: DEFAULT_REGION };
    this.users.push(user);
    return user;
  }

  userByToken(token: string): FakeUser | undefined {
    return this.users.find((user) => user.token === token);
  }

  addNode(
    owner: FakeUser,
    title: string,
    options: {
      parent?: FakeNode;
      public?: boolean;
      tags?: string[];
      category?: string;
      region?: string;
    } = {},
  ): FakeNode {
    const created = this.now();
    const node: FakeNode = {
      id: this.guid(),
      title,
      category: options.category ?? (options.parent ? 'data' : 'project'),
      description: '',
      public: options.public ?? false,
      tags: [...(options.tags ?? [])],
      parent: options.parent ?? null,
      contributors: [owner],
      created,
      modified: created,
      deleted: false,
      storages: new Map(),
      // a new node's storage is in its creator's default region (NodeSettings.on_add in addons/osfstorage/models.py)
      region: options.region ?? owner.defaultRegion,
    };
    this.nodes.set(node.id, node);
    this.addStorage(node, OSF_STORAGE);
    return node;
  }

  addStorage(node: FakeNode, provider: string): FakeFolder {
    const root: FakeFolder = { ...this.entryBase(node, provider, '', null), kind: 'folder', children: [] };
    node.storages.set(provider, root);
    this.entries.set(root.id, root);
    return root;
  }

  addFolder(parent: FakeFolder, name: string): FakeFolder {
    const folder: FakeFolder = {
      ...this.entryBase(parent.node, parent.provider, name, parent),
      kind: 'folder',
      children: [],
    };
    this.attach(folder);
    return folder;
  }

  addFile(parent: FakeFolder, name: string, content: Buffer): FakeFile {
    const file: FakeFile = {
      ...this.entryBase(parent.node, parent.provider, name, parent),
      kind: 'file',
      versions: [],
    };
    this.addVersion(file, content);
    this.attach(file);
    return file;
  }

  addVersion(file: FakeFile, content: Buffer): void {
    const sha256 = createHash('sha256').update(content).digest('hex');
    const md5 = createHash('md5').update(content).digest('hex');
    this.blobs.set(sha256, content);
    const created = this.now();
    file.versions.push({ content, md5, sha256, created });
    file.node.modified = created;
  }

  /** Makes a folder's path (names below a root), creating missing folders. */
  folderAt(root: FakeFolder, names: readonly string[]): FakeFolder {
    let folder = root;
    for (const name of names) {
      const existing = childNamed(folder, name, 'folder');
      folder = existing ?? this.addFolder(folder, name);
    }
    return folder;
  }

  clear(): void {
    this.nodes.clear();
    this.entries.clear();
    this.blobs.clear();
  }

  private attach(entry: FakeEntry): void {
    entry.parent!.children.push(entry);
    this.entries.set(entry.id, entry);
    entry.node.modified = this.now();
  }

  private entryBase(node: FakeNode, provider: string, name: string, parent: FakeFolder | null): EntryBase {
    // OSF file ids look like MongoDB object ids: 24 hex digits
    return {
      id: `5e${(++this.serial).toString(16).padStart(22, '0')}`,
      name,
      node,
      provider,
      parent,
      tags: [],
    };
  }

  /** Five characters, like OSF's GUIDs. */
  private guid(): string {
    let n = ++this.serial * 7919;
    let guid = '';
    for (let i = 0; i < 5; i++, n = Math.floor(n / GUID_ALPHABET.length))
      guid += GUID_ALPHABET[n % GUID_ALPHABET.length];
    return guid;
  }
}

export function childNamed<K extends FakeEntry['kind']>(
  folder: FakeFolder,
  name: string,
  kind: K,
): Extract<FakeEntry, { kind: K }> | undefined {
  return folder.children.find((child) => child.name === name && child.kind === kind) as
    Extract<FakeEntry, { kind: K }> | undefined;
}

/** The Unix-style path from the provider's root: `/`, `/a/b/` for a folder, `/a/b/c.txt` for a file. */
export function materializedPath(entry: FakeEntry): string {
  if (entry.parent === null) return '/';
  return `${materializedPath(entry.parent)}${entry.name}${entry.kind === 'folder' ? '/' : ''}`;
}

/** WaterButler's path: osfstorage names entries by id (`/<id>` and `/<id>/`), other providers by path. */
export function waterButlerPath(entry: FakeEntry): string {
  if (entry.provider !== OSF_STORAGE || entry.parent === null) return materializedPath(entry);
  return entry.kind === 'folder' ? `/${entry.id}/` : `/${entry.id}`;
}

export function latest(file: FakeFile): FakeVersion {
  return file.versions[file.versions.length - 1];
}

export function isContributor(node: FakeNode, user: FakeUser | null): boolean {
  return user !== null && node.contributors.includes(user);
}
