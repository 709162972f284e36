import { constants, statSync } from 'node:fs';
import { access, cp, lstat, mkdir, mkdtemp, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import {
  SEARCH_FILTERS,
  type Connector,
  type ConnectorDefinition,
  type ConnectorSession,
  type TargetStatus,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { DigestCache } from './digest-cache';
import * as operations from './operations';
import { ProjectNames, statOnceThenFresh, type FolderStat } from './project-names';
import { sha256Hex, usersByTokenDigest, validateOptions, type FilesystemOptions } from './options';
import type { FilesystemSession } from './session';
import { filesystemNameProblem, STORED_HASHES } from './writing';

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

/** A directory of the service's holding one folder per user, each user's projects in it. */
class FilesystemConnector implements Connector {
  readonly hashAlgorithms = ['sha256', 'md5'];
  readonly storedHashAlgorithms = STORED_HASHES;
  readonly nameProblem = filesystemNameProblem;
  private readonly digests = new DigestCache();
  private readonly projectNames = new ProjectNames();
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
    const { userDir, stat } = this.readyUserDir(username) ?? (await this.prepareUserDir(username));
    const session = {
      username,
      userDir,
      userDirStat: statOnceThenFresh(userDir, stat),
      perPage: this.perPage,
      digests: this.digests,
      projectNames: this.projectNames,
    };
    return bindSession<FilesystemSession>(username, session, operations);
  }

  /**
   * The user's directory once it has been made ready, with the stat that checked it: it is only checked to
   * still be a directory (one synchronous stat, which the listing then uses as its own, and no promise), so
   * that a listing costs little more than its own reads. Undefined when it is not ready or no longer a
   * directory.
   */
  private readyUserDir(username: string): { userDir: string; stat: FolderStat } | undefined {
    const ready = this.userDirs.get(username);
    if (ready === undefined) return undefined;
    const takenAt = Date.now();
    const stats = statSync(ready, { throwIfNoEntry: false });
    return stats?.isDirectory() ? { userDir: ready, stat: { stats, takenAt } } : undefined;
  }

  /** The user's directory, made on first use and resolved, with the stat that checked it. */
  private async prepareUserDir(username: string): Promise<{ userDir: string; stat: FolderStat }> {
    const userDir = join(this.root, username);
    try {
      await this.prepareRoot();
      // Not recursive: a missing root is a fault to report, not something to recreate silently.
      await mkdir(userDir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      const realUserDir = await realpath(userDir);
      const takenAt = Date.now();
      const stats = await stat(realUserDir);
      if (!stats.isDirectory()) throw unavailable();
      this.userDirs.set(username, realUserDir);
      return { userDir: realUserDir, stat: { stats, takenAt } };
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
