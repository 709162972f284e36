import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type {
  Connector,
  ConnectorCapabilities,
  ConnectorContext,
  ConnectorSession,
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  RemoteFile,
  RemoteFolder,
} from '@app/connectors';
import { readAll } from '../support/connector-failures';

/** The token the suite opens sessions with: the fake's user, `alice`. */
export const TOKEN = 'alice-token';
/** A token no fake knows. */
export const BAD_TOKEN = 'mallory-token';
/** The page size the suite sets in the options of every connector it tests. */
export const PER_PAGE = 5;

/** Files by path inside a project; a path ending in `/` is an empty folder. */
export type SeedTree = Record<string, string | Buffer>;

export interface SeedOptions {
  /** the target's own keywords of the project */
  keywords?: string[];
  /** files pushed through Git LFS (git holds their pointers), for a connector declaring `gitLfs` */
  lfs?: SeedTree;
}

/** A connector's target as a spec sets it up: a fake upstream (or a directory), and how to fill it. */
export interface ConnectorUnderTest<Options> {
  /** the options of a targets-file entry for the fake; the suite sets `per_page` to PER_PAGE */
  options: Options;
  /** the connector context where the target needs its own (the filesystem's data directory) */
  context?: Partial<ConnectorContext>;
  /** Makes a top-level resource of TOKEN's user holding `files`, newer than any made before; its id. */
  seedProject(title: string, files: SeedTree, options?: SeedOptions): Promise<string>;
  /** Removes everything seeded and written, so each case starts from an empty account. */
  reset(): Promise<void>;
  /**
   * The title the target gives a resource made with `requested` (GitHub names a repository without spaces);
   * the requested title itself where the target keeps titles as they are.
   */
  titleOf?(requested: string): string;
  /**
   * Whether a folder without files is kept (true unless given): Dataverse's folders are its files' paths, so
   * there are none without files there.
   */
  emptyFolders?: boolean;
  /**
   * The token of the user the suite opens sessions for, where the target's tokens have a form of their own
   * (S3's access key pairs); TOKEN unless given.
   */
  token?: string;
  /**
   * How the target orders its top-level resources: newest first (unless given), or by name where the upstream
   * can do no other (S3 lists keys in binary order, and a prefix has no date).
   */
  order?: 'newest' | 'name';
  /** ids of resources the user may not see (403) and that are gone (410), where the target has them */
  forbiddenId?(): Promise<string>;
  goneId?(): Promise<string>;
  teardown?(): Promise<void>;
}

/** What the cases share: set up before all of them (target, connector) and before each (session). */
export interface Suite {
  capabilities: ConnectorCapabilities;
  target: ConnectorUnderTest<unknown>;
  connector: Connector;
  session: ConnectorSession;
}

/** `it` where the condition holds, `it.skip` (reported as skipped) where it does not. */
export function itWhen(condition: boolean): jest.It {
  return condition ? it : it.skip;
}

export function titleOf(suite: Suite, requested: string): string {
  return suite.target.titleOf?.(requested) ?? requested;
}

/** Every checksum a connector may report, computed here independently of the service's own code. */
export function checksum(algorithm: string, bytes: Buffer): string {
  if (algorithm === 'git-blob-sha1') {
    return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  }
  return createHash(algorithm).update(bytes).digest('hex');
}

export function incoming(content: string | Buffer): IncomingFile {
  const bytes = Buffer.from(content);
  return { size: bytes.length, open: async () => Readable.from([bytes]) };
}

/** A file that offers a local copy, copied into a temporary file: whether it holds the streamed bytes, and the digest. */
export async function copiedBytes(file: RemoteFile): Promise<{ equal: boolean; sha256: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'presqt-copy-'));
  try {
    const { copied, stored } = await file.copyInto!({ path: join(dir, 'copy'), readBack: ['sha256'] }, [
      'sha256',
    ]);
    const streamed = await readAll(await file.open());
    // what was read back is what was copied
    expect(stored).toEqual(copied);
    return { equal: (await readFile(join(dir, 'copy'))).equals(streamed), sha256: copied.sha256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function walked(session: ConnectorSession, id: string): Promise<(RemoteFile | RemoteFolder)[]> {
  const entries: (RemoteFile | RemoteFolder)[] = [];
  for await (const entry of session.walk(id)) entries.push(entry);
  return entries;
}

/** Path -> bytes of every file a walk yields. */
export async function contents(session: ConnectorSession, id: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  // read as the walk goes, as jobs do: a file need not open once its walk is over (see WalkOptions)
  for await (const entry of session.walk(id)) {
    if (entry.kind === 'file') files[entry.path] = (await readAll(await entry.open())).toString('utf8');
  }
  return files;
}

/** Writes `files` into a container through one writer, as a job does, and commits them. */
export async function put(
  session: ConnectorSession,
  containerId: string,
  files: Record<string, string>,
  duplicate: DuplicateAction = 'ignore',
  newProject = false,
): Promise<PutFileResult[]> {
  // as a job says, so that a target without folders can keep nested files together
  const nested = Object.keys(files).some((path) => path.includes('/'));
  const writer = await session.openWriter(containerId, { newProject, message: 'conformance', nested });
  const results = [];
  for (const [path, content] of Object.entries(files))
    results.push(await writer.putFile(path.split('/'), incoming(content), duplicate));
  await writer.commit();
  return results;
}
