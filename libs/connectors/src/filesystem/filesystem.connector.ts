import { hashFile } from '@app/fixity';
import { constants, createReadStream, open as openCallback, statSync, type Stats } from 'node:fs';
import { access, cp, lstat, mkdir, mkdtemp, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  HASH_ALGORITHMS,
  SEARCH_FILTERS,
  type CollectionPage,
  type CollectionQuery,
  type Connector,
  type ConnectorDefinition,
  type ConnectorSession,
  type WriterOptions,
  type ResourceWriter,
  type ResourceSummary,
  type RemoteFile,
  type RemoteFolder,
  type ResourceDetail,
  type TargetStatus,
} from '../connector';
import { ConnectorError } from '../connector-error';
import {
  KEYWORDS_FILE,
  listChildren,
  listResources,
  measureTree,
  readKeywordsFile,
  summarize,
  walkTree,
} from './listing';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { sha256Hex, usersByTokenDigest, validateOptions, type FilesystemOptions } from './options';
import { decodeId, resolveInside, toConnectorError, type Resolved } from './paths';
import {
  claimedDirectory,
  FilesystemWriter,
  filesystemNameProblem,
  makeUniqueDirectory,
  PARTIAL_PREFIX,
} from './writing';
import { capabilities } from '../capabilities';

const DIGEST_CACHE_ENTRIES = 1000;
const openFd = promisify(openCallback);

/** File digests recently computed, keyed by what changes whenever the file's content does. */
class DigestCache {
  private readonly entries = new Map<string, Promise<Record<string, string>>>();

  get(
    path: string,
    stats: Stats,
    algorithms: readonly string[] = HASH_ALGORITHMS,
  ): Promise<Record<string, string>> {
    const key = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${algorithms.join(',')}`;
    let digests = this.entries.get(key);
    if (digests) {
      this.entries.delete(key); // re-inserted below as the most recently used
    } else {
      // Caching the promise lets concurrent requests for one file share a single pass over it.
      const computing = hashFile(path, algorithms);
      computing.catch(() => this.entries.get(key) === computing && this.entries.delete(key));
      digests = computing;
    }
    this.entries.set(key, digests);
    if (this.entries.size > DIGEST_CACHE_ENTRIES) {
      const [oldest] = this.entries.keys();
      this.entries.delete(oldest);
    }
    return digests;
  }
}

function unavailable(): ConnectorError {
  return new ConnectorError(503, 'The storage of this target is not available.');
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

/**
 * Copies the seed into a fresh sibling of the root, then renames that into place: rename is atomic, so a
 * process starting at the same time sees either no root or a complete one, and the loser drops its copy.
 */
async function seedRoot(root: string, seed: string): Promise<void> {
  if (await exists(root)) return;
  await mkdir(dirname(root), { recursive: true });
  const copy = await mkdtemp(`${root}.seeding-`);
  try {
    await cp(seed, copy, { recursive: true });
    await rename(copy, root);
  } catch (error) {
    await rm(copy, { recursive: true, force: true });
    if (!(await exists(root))) throw error;
  }
}

class FilesystemSession implements ConnectorSession {
  constructor(
    readonly username: string,
    /** realpath of `<root>/<username>` */
    private readonly userDir: string,
    private readonly perPage: number,
    private readonly digests: DigestCache,
  ) {}

  listResources(query: CollectionQuery): Promise<CollectionPage> {
    return listResources(this.userDir, this.username, { ...query, perPage: this.perPage });
  }

  async getResource(id: string): Promise<ResourceDetail> {
    const { relativePath, absolute, stats } = await this.locate(id);
    const { kind, kindName, title } = summarize(relativePath, stats.isDirectory());
    const resource = {
      kind,
      kindName,
      id,
      title,
      // Some filesystems do not record a birth time and report 0.
      dateCreated: (stats.birthtimeMs > 0 ? stats.birthtime : stats.ctime).toISOString(),
      dateModified: stats.mtime.toISOString(),
    };
    const path = `/${relativePath}`;
    try {
      if (stats.isFile()) {
        const { md5, sha256 } = await this.digests.get(absolute, stats);
        return {
          ...resource,
          hashes: { md5, sha256 },
          extra: { path, size: stats.size, provider: 'filesystem' },
          children: [],
        };
      }
      const [{ size, fileCount }, children] = await Promise.all([
        measureTree(absolute),
        listChildren(absolute, relativePath),
      ]);
      return {
        ...resource,
        hashes: { md5: null, sha256: null },
        extra: { path, size, file_count: fileCount, provider: 'filesystem' },
        children,
      };
    } catch (error) {
      throw toConnectorError(error, id);
    }
  }

  /** The user's resource an id names; 404 for an id that names nothing the user may see. */
  private async locate(id: string): Promise<Resolved & { relativePath: string }> {
    const relativePath = decodeId(id);
    if (relativePath === null) throw ConnectorError.unknownResource(id);
    return { relativePath, ...(await resolveInside(this.userDir, relativePath, id)) };
  }

  async createProject(title: string, claim?: string): Promise<ResourceSummary> {
    return summarize(makeUniqueDirectory(this.userDir, title, claim), true);
  }

  async claimedProject(claim: string): Promise<ResourceSummary | null> {
    const name = claimedDirectory(this.userDir, claim);
    return name === null ? null : summarize(name, true);
  }

  async openWriter(containerId: string, options: WriterOptions): Promise<ResourceWriter> {
    const { relativePath, absolute, stats } = await this.locate(containerId);
    if (!stats.isDirectory()) throw ConnectorError.notAContainer(containerId);
    return new FilesystemWriter(absolute, relativePath, options.newProject, options.stagingDir);
  }

  async keywords(id: string): Promise<string[]> {
    return readKeywordsFile(await this.keywordsDir(id));
  }

  async setKeywords(id: string, keywords: readonly string[]): Promise<string[]> {
    const dir = await this.keywordsDir(id);
    const temporary = join(dir, `${PARTIAL_PREFIX}${randomUUID()}`);
    await writeFile(temporary, JSON.stringify([...keywords]));
    await rename(temporary, join(dir, KEYWORDS_FILE));
    return [...keywords];
  }

  /** Keywords belong to folders and projects, kept in a reserved file inside them. */
  private async keywordsDir(id: string): Promise<string> {
    const { absolute, stats } = await this.locate(id);
    if (!stats.isDirectory())
      throw new ConnectorError(400, 'PresQT Error: files on this target have no keywords.');
    return absolute;
  }

  async *walk(id: string): AsyncIterable<RemoteFolder | RemoteFile> {
    const { relativePath, absolute, stats } = await this.locate(id);
    const title = basename(relativePath);
    if (stats.isFile()) {
      yield this.remoteFile(title, absolute, stats);
      return;
    }
    for await (const entry of walkTree(absolute, title)) {
      yield entry.stats
        ? this.remoteFile(entry.path, entry.absolute, entry.stats)
        : { kind: 'folder', path: entry.path };
    }
  }

  private remoteFile(path: string, absolute: string, stats: Stats): RemoteFile {
    return {
      kind: 'file',
      path,
      size: stats.size,
      checksumsOfBytes: true,
      sourceHashes: async (wanted) => {
        // only the first algorithm it keeps: the file is read for it alone
        const algorithm = wanted.find((name) => (HASH_ALGORITHMS as readonly string[]).includes(name));
        if (!algorithm) return {};
        const digests = await this.digests.get(absolute, stats, [algorithm]);
        return { [algorithm]: digests[algorithm] };
      },
      open: async (): Promise<Readable> => {
        // O_NOFOLLOW: a file swapped for a symlink since the walk is refused, not followed. A plain fd stream
        // reads faster than a FileHandle's, whose reads go through promises.
        const fd = await openFd(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
        // reading up to the size walked, not to EOF, spares a buffer per file for the read that finds EOF
        return createReadStream('', {
          fd,
          highWaterMark: 1 << 20,
          start: 0,
          end: Math.max(0, stats.size - 1),
        });
      },
    };
  }
}

class FilesystemConnector implements Connector {
  readonly hashAlgorithms = ['sha256', 'md5'];
  readonly nameProblem = filesystemNameProblem;
  private readonly digests = new DigestCache();
  /** each user's directory, resolved, once it has been made ready */
  private readonly userDirs = new Map<string, string>();
  private seeding?: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly seed: string | undefined,
    /** user name by sha256 of the token: plain tokens are not kept */
    private readonly users: Map<string, string>,
    private readonly perPage: number,
  ) {}

  async open(token: string): Promise<ConnectorSession> {
    const username = this.users.get(sha256Hex(token));
    if (username === undefined) throw ConnectorError.invalidToken();
    return new FilesystemSession(username, await this.userDir(username), this.perPage, this.digests);
  }

  /**
   * The user's directory, made on first use and resolved. Once ready it is only checked to still be a
   * directory (one synchronous stat), which keeps a listing's cost down to its own reads.
   */
  private async userDir(username: string): Promise<string> {
    const ready = this.userDirs.get(username);
    if (ready !== undefined && statSync(ready, { throwIfNoEntry: false })?.isDirectory()) return ready;
    const userDir = join(this.root, username);
    try {
      await this.prepareRoot();
      // Not recursive: a missing root is a fault to report, not something to recreate silently.
      await mkdir(userDir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      const realUserDir = await realpath(userDir);
      if (!(await stat(realUserDir)).isDirectory()) throw unavailable();
      this.userDirs.set(username, realUserDir);
      return realUserDir;
    } catch {
      this.userDirs.delete(username);
      throw unavailable();
    }
  }

  async status(): Promise<TargetStatus> {
    try {
      await this.prepareRoot();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      return { ok: false, detail: `Copying the seed data into the root directory failed (${code}).` };
    }
    try {
      if (!(await stat(this.root)).isDirectory())
        return { ok: false, detail: 'The root path is not a directory.' };
      await access(this.root, constants.R_OK | constants.X_OK);
      return { ok: true, detail: 'The root directory exists and is readable.' };
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      return { ok: false, detail: `The root directory ${missing ? 'does not exist' : 'is not readable'}.` };
    }
  }

  /** Seeds the root on first use, once per process; a failed attempt is tried again on the next use. */
  private prepareRoot(): Promise<void> {
    if (this.seed === undefined) return Promise.resolve();
    this.seeding ??= seedRoot(this.root, this.seed).catch((error: unknown) => {
      this.seeding = undefined;
      throw error;
    });
    return this.seeding;
  }
}

export const filesystemConnector: ConnectorDefinition<FilesystemOptions> = {
  name: 'filesystem',
  capabilities: capabilities({
    searchFilters: SEARCH_FILTERS,
    abilities: [
      'write',
      'folders',
      'keywords',
      'claimedProjects',
      'takesBackNewProjects',
      'takesBackCreatedFiles',
    ],
  }),
  validateOptions,
  create(options, context) {
    return new FilesystemConnector(
      resolve(context.dataDir, options.root),
      options.seed === undefined ? undefined : resolve(context.configDir, options.seed),
      usersByTokenDigest(options.tokens),
      options.per_page ?? context.perPage,
    );
  },
};
