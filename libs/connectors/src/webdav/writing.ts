import { randomUUID } from 'node:crypto';
import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { ConnectorError } from '../connector-error';
import { CreatedFiles } from '../created-files';
import { incomingDigest } from '../incoming-digest';
import { checkPathNames } from '../name-rules';
import { freeNumberedTitle } from '../numbered-title';
import type { WebdavApi, WriteHeaders } from './api';
import { chunkedUpload } from './chunked-upload';
import { pathOf, summarize } from './detail';
import { nameOf, type DavEntry } from './entities';
import { encodeId } from './ids';
import { MadeFolders } from './made-folders';
import { webdavNameProblem } from './names';
import type { WebdavSession } from './session';
import { remoteFile } from './walking';

/** A folder being written into: its path and its members as last seen, by name. */
interface Folder {
  path: string[];
  entries: Map<string, DavEntry>;
}

/** How a file's bytes went: in one PUT with or without an MD5 as OC-Checksum, or in chunks. */
type WriteKind = 'with md5' | 'without md5' | 'chunked';

/** A new top-level folder, numbered when the user has that name; MKCOL answers 405 for one made meanwhile. */
export async function createProject({ api }: WebdavSession, title: string): Promise<ResourceSummary> {
  const wanted = title.trim();
  checkPathNames([wanted], webdavNameProblem, api.name);
  for (let attempt = 0; attempt < 5; attempt++) {
    const [, ...members] = await api.propfind([], 1);
    const unique = await freeNumberedTitle(wanted, async () => ({
      titles: members.map(nameOf),
      more: false,
    }));
    if ((await api.mkcol(api.urlOf([unique], true))) === 'created')
      return summarize({ path: [unique], collection: true });
  }
  throw new ConnectorError(409, `${api.name} kept refusing a new folder named '${wanted}'.`);
}

/**
 * Whether an incoming file holds what the server has: by size, then by a checksum the server keeps, else by
 * the server's bytes read back. Answers the incoming file's MD5 where it was read for it.
 */
async function compareContent(
  api: WebdavApi,
  file: IncomingFile,
  existing: DavEntry,
): Promise<{ same: boolean; md5?: string }> {
  if (existing.size !== file.size) return { same: false };
  const { sha1 } = existing.checksums;
  if (!existing.checksums.md5 && sha1) return { same: (await incomingDigest(file, 'sha1')) === sha1 };
  const md5 = await incomingDigest(file, 'md5');
  const theirs = (await remoteFile(api, nameOf(existing), existing).sourceHashes(['md5'])).md5;
  return { same: md5 === theirs, md5 };
}

function members(entries: DavEntry[]): Map<string, DavEntry> {
  return new Map(entries.map((entry) => [nameOf(entry), entry]));
}

/**
 * Files going into one folder, each stored as it is put: a new file by one PUT (or Nextcloud's chunked upload
 * for a large one), with `OC-Checksum` where the file's MD5 is known beforehand (IncomingFile.knownHashes), so
 * that Nextcloud and ownCloud keep it (ownCloud checks it, and refuses bytes that differ); a changed file by a PUT beside it and a MOVE over it, so the old content stays
 * until the new one is whole. Missing folders are made with MKCOL. What the job created is remembered (and
 * staged) so that a failed or cancelled job takes it back.
 */
class WebdavWriter implements ResourceWriter {
  private readonly folders = new Map<string, Promise<Folder>>();
  private readonly created = new CreatedFiles<string[]>();
  private readonly madeFolders: MadeFolders;
  /** whether the server keeps checksums of a file written each way, once a write of that kind told */
  private readonly keepsChecksums = new Map<WriteKind, boolean>();
  private uploads: URL | undefined;

  constructor(
    private readonly session: WebdavSession,
    private readonly container: Folder,
    private readonly options: WriterOptions,
  ) {
    this.folders.set('', Promise.resolve(container));
    this.uploads = session.uploads;
    this.madeFolders = new MadeFolders(options.stagingDir);
  }

  private get api(): WebdavApi {
    return this.session.api;
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    checkPathNames(path, webdavNameProblem, this.api.name);
    const folder = await this.folderAt(path.slice(0, -1));
    const name = path[path.length - 1];
    const target = [...folder.path, name];
    const existing = folder.entries.get(name);
    if (existing?.collection)
      throw new ConnectorError(400, `'${path.join('/')}' is a folder at ${this.api.name}, not a file.`);
    let kind: WriteKind;
    if (existing) {
      if (duplicate === 'ignore') return this.result('ignored', existing);
      const { same, md5 } = await compareContent(this.api, file, existing);
      if (same) return this.result('ignored', existing);
      kind = await this.replace(target, file, md5, existing);
    } else kind = await this.create(target, file);
    const stored = await this.storedEntry(target, file, kind);
    folder.entries.set(name, stored);
    if (existing) return this.result('updated', stored);
    const made = this.madeFolders.takeUnstaged().map((folderPath) => [...folderPath, ''].join('/'));
    return { ...this.result('created', stored), staged: this.created.add([...made, target.join('/')]) };
  }

  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  /** Nothing: every file was stored when it was put. */
  async commit(): Promise<void> {}

  /**
   * A project made for the job goes whole; elsewhere the files and folders the job made go, a killed run's
   * folders too, also those it made before it could store a file in them (MadeFolders).
   */
  async abandon(): Promise<void> {
    if (this.options.newProject) {
      await this.api.remove(this.api.urlOf(this.container.path, true));
      return;
    }
    const removeAll = async (paths: string[]) => {
      for (const path of paths)
        await this.api.remove(this.api.urlOf(path.split('/').filter(Boolean), path.endsWith('/')));
    };
    await this.created.removeAll(removeAll);
    await removeAll((await this.madeFolders.all()).map((folderPath) => `${folderPath.join('/')}/`));
  }

  /**
   * The stored file as the server describes it (a PROPFIND), for the checksums it keeps; the first write of a
   * kind tells whether the server keeps any for such writes, and where it keeps none (a plain server; Nextcloud
   * for a PUT without OC-Checksum) the later ones are not asked: the file is as written.
   */
  private async storedEntry(target: string[], file: IncomingFile, kind: WriteKind): Promise<DavEntry> {
    if (this.keepsChecksums.get(kind) === false) {
      const now = new Date().toISOString();
      return { path: target, collection: false, size: file.size, modified: now, created: now, checksums: {} };
    }
    const stored = await this.api.stat(target);
    if (!stored)
      throw new ConnectorError(502, `${this.api.name} does not show '${target.join('/')}' it stored.`);
    const keeps = Object.keys(stored.checksums).length > 0;
    this.keepsChecksums.set(kind, keeps);
    // a server that keeps no checksum it is sent computes none either
    if (kind === 'with md5' && !keeps) this.keepsChecksums.set('without md5', false);
    return stored;
  }

  /** A new file; what a failed upload left there (a plain server keeps a cut PUT's bytes) is deleted. */
  private async create(target: string[], file: IncomingFile): Promise<WriteKind> {
    try {
      // If-None-Match and Overwrite F (RFC 7232 §3.2, RFC 4918 §10.6): a file made meanwhile is not overwritten
      return await this.store(target, file, undefined, { 'if-none-match': '*' }, { overwrite: 'F' });
    } catch (error) {
      if (!(error instanceof ConnectorError && error.status === 409))
        await this.api.remove(this.api.urlOf(target)).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A changed file: the new bytes beside it, then moved over it, unless it changed since it was listed. The
   * check is a PROPFIND of its ETag just before the MOVE: a MOVE's If-Match would be the source's (RFC 7232
   * conditions apply to the request's own resource), and RFC 4918's tagged If lists are not kept by every server.
   */
  private async replace(
    target: string[],
    file: IncomingFile,
    md5: string | undefined,
    existing: DavEntry,
  ): Promise<WriteKind> {
    const beside = [...target.slice(0, -1), `.presqt-upload-${randomUUID()}`];
    try {
      const kind = await this.store(beside, file, md5, {}, {});
      const now = await this.api.stat(target);
      if (existing.etag && now?.etag !== existing.etag)
        throw new ConnectorError(
          409,
          `'${target.join('/')}' changed at ${this.api.name} while it was being written; it was left as it is there.`,
        );
      await this.api.move(this.api.urlOf(beside), this.api.urlOf(target), { overwrite: 'T' });
      return kind;
    } catch (error) {
      await this.api.remove(this.api.urlOf(beside)).catch(() => undefined);
      throw error;
    }
  }

  /** The bytes at `target`: in chunks where the server takes them and the file is large, else one PUT. */
  private async store(
    target: string[],
    file: IncomingFile,
    md5: string | undefined,
    conditions: WriteHeaders,
    moveConditions: Record<string, string>,
  ): Promise<WriteKind> {
    const url = this.api.urlOf(target);
    if (this.uploads && file.size > this.session.chunkBytes) {
      if (await chunkedUpload(this.api, this.uploads, url, file, this.session.chunkBytes, moveConditions))
        return 'chunked';
      // the server takes no chunked uploads there: every file goes in one PUT from now on
      this.uploads = undefined;
    }
    // the MD5 goes before the bytes: only one known without reading the file again (the source's) is sent
    const checksum = md5 ?? (await file.knownHashes?.(['md5']))?.md5;
    await this.api.put(target, file.size, () => file.open(), {
      ...conditions,
      ...(checksum ? { 'oc-checksum': `MD5:${checksum}` } : {}),
    });
    return checksum ? 'with md5' : 'without md5';
  }

  /** The folder at `segments` below the container, listed once, made when missing. */
  private folderAt(segments: readonly string[]): Promise<Folder> {
    const key = segments.join('/');
    let folder = this.folders.get(key);
    if (!folder) {
      const making = this.folderAt(segments.slice(0, -1)).then((parent) =>
        this.ensureFolder(parent, segments[segments.length - 1]),
      );
      making.catch(() => this.folders.get(key) === making && this.folders.delete(key));
      folder = making;
      this.folders.set(key, folder);
    }
    return folder;
  }

  private async ensureFolder(parent: Folder, name: string): Promise<Folder> {
    const path = [...parent.path, name];
    const existing = parent.entries.get(name);
    if (existing && !existing.collection)
      throw new ConnectorError(400, `'${path.join('/')}' is a file at ${this.api.name}, not a folder.`);
    // a plain server may answer MKCOL with 201 for a folder that exists (rclone's does): only one the
    // listing does not show is made, and counted as the job's
    if (!existing && (await this.api.mkcol(this.api.urlOf(path, true))) === 'created') {
      await this.madeFolders.add(path);
      parent.entries.set(name, { ...existingFolder(path) });
      return { path, entries: new Map() };
    }
    const [self, ...inside] = await this.api.propfind(path, 1);
    if (!self.collection)
      throw new ConnectorError(400, `'${path.join('/')}' is a file at ${this.api.name}, not a folder.`);
    parent.entries.set(name, self);
    return { path, entries: members(inside) };
  }

  private result(outcome: PutFileResult['outcome'], stored: DavEntry): PutFileResult {
    const relative = stored.path.join('/');
    return { outcome, id: encodeId(stored.path), path: `/${relative}`, hashes: { ...stored.checksums } };
  }
}

/** A folder's entry as the writer knows it once made. */
function existingFolder(path: string[]): DavEntry {
  const now = new Date().toISOString();
  return { path, collection: true, size: 0, modified: now, created: now, checksums: {} };
}

export async function openWriter(
  session: WebdavSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const [self, ...inside] = await session.api.propfind(pathOf(containerId), 1, containerId);
  if (!self.collection) throw ConnectorError.notAContainer(containerId);
  return new WebdavWriter(session, { path: self.path, entries: members(inside) }, options);
}
