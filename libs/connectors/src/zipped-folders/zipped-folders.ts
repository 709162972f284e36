import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type {
  DetailOptions,
  CollectionPage,
  CollectionQuery,
  Connector,
  ConnectorContext,
  ConnectorSession,
  RemoteFile,
  RemoteFolder,
  ResourceDetail,
  ResourceSummary,
  ResourceWriter,
  TargetStatus,
  WalkOptions,
  WriterOptions,
} from '../connector';
import { PackedZip, packedZipName } from './packed-zip';
import { unpackingWalk } from './unpacking-walk';
import { ZippingWriter } from './zipping-writer';

/**
 * A connector of a target that keeps no folders (Zenodo, FigShare), made to hold resources with folders: a
 * resource whose files sit in folders is stored as one BagIt zip, `<title>.presqt.zip`, and every walk unpacks
 * such zips again, so a round trip gives back the same tree, byte for byte, with every file checked against
 * the bag's manifests. A resource without folders is stored as plain files, as the target would keep them.
 */
export function withZippedFolders(connector: Connector, context: ConnectorContext): Connector {
  return new ZippedFoldersConnector(connector, join(context.dataDir, 'staging'));
}

class ZippedFoldersConnector implements Connector {
  /** the target's own checksums, and the sha256 of the bag's manifests for unpacked files */
  readonly hashAlgorithms: readonly string[];

  constructor(
    private readonly inner: Connector,
    private readonly tempDir: string,
  ) {
    this.hashAlgorithms = [...new Set([...inner.hashAlgorithms, 'sha256'])];
  }

  nameProblem(name: string): string | null {
    return this.inner.nameProblem(name);
  }

  async open(token: string): Promise<ConnectorSession> {
    return new ZippedFoldersSession(await this.inner.open(token), this.inner.hashAlgorithms, this.tempDir);
  }

  status(): Promise<TargetStatus> {
    return this.inner.status();
  }
}

class ZippedFoldersSession implements ConnectorSession {
  /** the inner session's, where it has one (ConnectorCapabilities.claimedProjects) */
  readonly claimedProject?: (claim: string) => Promise<ResourceSummary | null>;

  constructor(
    private readonly inner: ConnectorSession,
    /** the checksums the target keeps, which fetched zips are checked against */
    private readonly algorithms: readonly string[],
    private readonly tempDir: string,
  ) {
    this.claimedProject = inner.claimedProject?.bind(inner);
  }

  get username(): string {
    return this.inner.username;
  }

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return this.inner.listResources(query);
  }

  getResource(id: string, options?: DetailOptions): Promise<ResourceDetail> {
    return this.inner.getResource(id, options);
  }

  walk(id: string, options: WalkOptions = {}): AsyncIterable<RemoteFolder | RemoteFile> {
    // a job's walks share one download of each zip; elsewhere (the API) a zip is fetched for the walk alone
    const place = options.workDir
      ? { dir: join(options.workDir, 'packed'), keep: true }
      : { dir: join(this.tempDir, randomUUID()), keep: false };
    return unpackingWalk(this.inner.walk(id, options), this.algorithms, place);
  }

  createProject(title: string, claim?: string): Promise<ResourceSummary> {
    return this.inner.createProject(title, claim);
  }

  async openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter> {
    const writer = await this.inner.openWriter(containerId, options);
    if (!options.nested) return writer;
    const stagingDir = options.stagingDir ?? join(this.tempDir, randomUUID());
    const { title, earlier } = await this.packedOf(containerId, stagingDir);
    return new ZippingWriter(writer, title, stagingDir, earlier, this.algorithms);
  }

  keywords(id: string): Promise<string[]> {
    return this.inner.keywords(id);
  }

  setKeywords(id: string, keywords: readonly string[]): Promise<string[]> {
    return this.inner.setKeywords(id, keywords);
  }

  /** The container's title and the zip already packed in it, if any (among its own files). */
  private async packedOf(
    containerId: string,
    stagingDir: string,
  ): Promise<{ title: string; earlier: PackedZip | null }> {
    let title: string | undefined;
    for await (const entry of this.inner.walk(containerId)) {
      if (title === undefined) {
        title = entry.path;
        continue;
      }
      if (entry.kind === 'folder') break;
      if (entry.path === `${title}/${packedZipName(title)}`) {
        const place = { dir: stagingDir, keep: false };
        return { title, earlier: await PackedZip.fetch(entry, this.algorithms, place) };
      }
    }
    return { title: title ?? containerId, earlier: null };
  }
}
