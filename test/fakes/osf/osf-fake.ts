import { FakeServer } from '../fake-server';
import { ApiRoutes, type ApiSettings } from './api-routes';
import type { Origins } from './json';
import {
  childNamed,
  DEFAULT_REGION,
  latest,
  OsfModel,
  OSF_STORAGE,
  type FakeFile,
  type FakeFolder,
  type FakeNode,
  type FakeUser,
} from './model';
import { installWebsiteRoutes, WaterButlerRoutes } from './waterbutler-routes';

/** Files by path; a path ending in `/` is an empty folder. */
export type FakeTree = Record<string, string | Buffer>;

/** The storage region besides the default one whose file service the fake runs. */
export const OTHER_REGION = 'de-1';

/**
 * A fake OSF on 127.0.0.1: the API (under `/v2`), the file service WaterButler of two storage regions (the
 * default `us` and `de-1`), the cloud storage that osfstorage downloads redirect to, and the website. Five
 * origins, so that a test can see which of them received credentials. Tests seed and read its state through
 * the methods below.
 */
export class OsfFake {
  readonly model = new OsfModel();
  readonly api = new FakeServer('OSF API', '/v2');
  /** the file service of the default region */
  readonly files = new FakeServer('WaterButler');
  /** the file service of OTHER_REGION, as OSF runs one per region (files.de-1.osf.io, ...) */
  readonly regionalFiles = new FakeServer(`WaterButler ${OTHER_REGION}`);
  readonly storage = new FakeServer('cloud storage');
  readonly web = new FakeServer('OSF website');
  readonly settings: ApiSettings = { maxPageSize: 100 };
  /**
   * The file service of each region but the default one, as OSF keeps it (Region.waterbutler_url in
   * addons/osfstorage/models.py); a test may add a region whose file service is elsewhere.
   */
  readonly regionOrigins: Record<string, string> = {};

  async start(): Promise<this> {
    await Promise.all(this.servers.map((server) => server.start()));
    this.regionOrigins[OTHER_REGION] = this.regionalFiles.origin;
    const origins = (): Origins => ({
      api: this.api.url,
      files: this.files.origin,
      regionFiles: this.regionOrigins,
      web: this.web.origin,
    });
    new ApiRoutes(this.api, this.model, origins, this.settings).install();
    for (const files of [this.files, this.regionalFiles])
      new WaterButlerRoutes(files, this.storage, this.model, origins).install();
    installWebsiteRoutes(this.web, this.model, origins);
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
  }

  /** Forgets every node and file (users stay, in the default region), faults, records and added regions. */
  reset(): void {
    this.model.clear();
    this.settings.maxPageSize = 100;
    for (const user of this.model.users) user.defaultRegion = DEFAULT_REGION;
    for (const region of Object.keys(this.regionOrigins))
      if (region !== OTHER_REGION) delete this.regionOrigins[region];
    for (const server of this.servers) {
      server.clearFaults();
      server.requests.length = 0;
      server.answers.length = 0;
    }
  }

  get servers(): FakeServer[] {
    return [this.api, this.files, this.regionalFiles, this.storage, this.web];
  }

  addUser(fullName: string, token: string): FakeUser {
    return this.model.addUser(fullName, token);
  }

  /** A project (or, with `parent`, a component) holding `files` in its osfstorage. */
  addProject(
    owner: FakeUser,
    title: string,
    files: FakeTree = {},
    options: { tags?: string[]; public?: boolean; parent?: FakeNode; region?: string } = {},
  ): FakeNode {
    const node = this.model.addNode(owner, title, options);
    this.addFiles(node, OSF_STORAGE, files);
    return node;
  }

  /** Files in a storage provider of a node (added to the node when it has none by that name). */
  addFiles(node: FakeNode, provider: string, files: FakeTree): void {
    const root = node.storages.get(provider) ?? this.model.addStorage(node, provider);
    for (const [path, content] of Object.entries(files)) {
      const names = path.split('/').filter((name) => name !== '');
      if (path.endsWith('/')) {
        this.model.folderAt(root, names);
      } else {
        const folder = this.model.folderAt(root, names.slice(0, -1));
        this.model.addFile(folder, names[names.length - 1], Buffer.from(content));
      }
    }
  }

  /** The entry at a path (`a/b.txt`, `a/` for a folder) of a node's storage. */
  entryAt(node: FakeNode, path: string, provider = OSF_STORAGE): FakeFile | FakeFolder | undefined {
    const names = path.split('/').filter((name) => name !== '');
    let folder: FakeFolder | undefined = node.storages.get(provider);
    for (const name of names.slice(0, -1)) folder = folder && childNamed(folder, name, 'folder');
    if (!folder || names.length === 0) return folder;
    const last = names[names.length - 1];
    return path.endsWith('/') ? childNamed(folder, last, 'folder') : childNamed(folder, last, 'file');
  }

  /** The bytes a file holds now. */
  contentOf(node: FakeNode, path: string, provider = OSF_STORAGE): Buffer | undefined {
    const entry = this.entryAt(node, path, provider);
    return entry?.kind === 'file' ? latest(entry).content : undefined;
  }

  nodeTitled(title: string): FakeNode | undefined {
    return [...this.model.nodes.values()].find((node) => node.title === title);
  }
}
