import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BagZipWriter, SOFTWARE_AGENT } from '@app/bagit';
import { readLocalFile } from '@app/common';
import { hashFile } from '@app/fixity';
import { FTS_METADATA_FILE } from '@app/metadata';
import type { DuplicateAction, IncomingFile, PutFileResult, ResourceWriter } from '../connector';
import { ConnectorError } from '../connector-error';
import { writeLocalFile } from '../local-file';
import { packedZipName, type PackedFile, type PackedZip } from './packed-zip';

/** A file waiting on local disk for the zip; plain JSON, so that a resumed run can take it over. */
interface StagedFile {
  /** below the container, `/`-separated */
  path: string;
  /** where its bytes wait */
  local: string;
}

/**
 * Writes a resource with folders into a target without folders as one BagIt zip, `<title>.presqt.zip`, in the
 * container, beside the service's metadata file (which stays a plain file, where every tool finds it). Files
 * wait on local disk (the job's staging directory, which survives a crash of the worker) until `commit` packs
 * them, with the files of the container's earlier zip that they do not replace, and stores the zip in place
 * of the earlier one. Duplicates are judged file by file against the earlier zip's manifest (docs/behaviour.md#duplicates).
 */
export class ZippingWriter implements ResourceWriter {
  private readonly staged = new Map<string, StagedFile>();
  /** the earlier zip's files by path */
  private readonly packed: Map<string, PackedFile>;

  constructor(
    private readonly inner: ResourceWriter,
    /** the container's title, which names the zip and its bag */
    private readonly title: string,
    private readonly stagingDir: string,
    /** the container's earlier zip, if it has one */
    private readonly earlier: PackedZip | null,
    /** the target's checksums of what it stores, to check the zip it stored */
    private readonly algorithms: readonly string[],
  ) {
    this.packed = new Map((earlier?.files ?? []).map((file) => [file.path, file]));
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    // the metadata file stays a plain file beside the zip
    if (path.length === 1 && path[0] === FTS_METADATA_FILE) return this.inner.putFile(path, file, duplicate);
    const key = path.join('/');
    const existing = this.packed.get(key);
    const result = { id: '', path: `/${this.title}/${key}`, hashes: {} };
    if (existing && duplicate === 'ignore') return { ...result, outcome: 'ignored' };
    const staged: StagedFile = { path: key, local: join(this.stagingDir, `zip-${randomUUID()}`) };
    await mkdir(this.stagingDir, { recursive: true });
    // read back only to compare with the file it would replace: the job checks the bytes that pass on its own
    const stored = await writeLocalFile(staged.local, file, existing ? ['sha256'] : []);
    if (existing && existing.checksums.sha256 === stored.sha256) {
      await rm(staged.local, { force: true });
      return { ...result, outcome: 'ignored' };
    }
    this.staged.set(key, staged);
    return { ...result, outcome: existing ? 'updated' : 'created', staged };
  }

  restage(staged: readonly unknown[]): void {
    for (const file of staged as StagedFile[]) this.staged.set(file.path, file);
  }

  async commit(): Promise<void> {
    if (this.staged.size > 0) {
      const zip = join(this.stagingDir, `zip-${randomUUID()}.zip`);
      try {
        await this.pack(zip);
        await this.store(zip);
      } finally {
        await rm(zip, { force: true });
      }
      await Promise.all([...this.staged.values()].map((file) => rm(file.local, { force: true })));
    }
    this.earlier?.release();
    await this.inner.commit();
  }

  /** The files waiting on disk go; what the target stored (the zip, the metadata file) its writer takes back. */
  async abandon(): Promise<void> {
    await Promise.all([...this.staged.values()].map((file) => rm(file.local, { force: true })));
    this.staged.clear();
    this.earlier?.release();
    await this.inner.abandon?.();
  }

  /** The bag: the earlier zip's files that stay, then the new ones. */
  private async pack(output: string): Promise<void> {
    const writer = new BagZipWriter({
      output,
      rootName: this.title.replace(/[/\\]/g, '_'),
      algorithms: ['md5'],
      bagInfo: { 'Bag-Software-Agent': SOFTWARE_AGENT },
      spillDir: this.stagingDir,
    });
    try {
      for (const kept of this.packed.values()) {
        if (this.staged.has(kept.path) || !this.earlier) continue;
        await writer.addPayloadFile(kept.path, await this.earlier.open(kept.path), kept.size);
      }
      for (const file of this.staged.values()) {
        const { size } = await stat(file.local);
        await writer.addPayloadFile(file.path, readLocalFile(file.local), size);
      }
      await writer.finalize();
    } catch (error) {
      await writer.abort();
      throw error;
    }
  }

  /** Stores the zip in place of the earlier one, and checks what the target says it stored. */
  private async store(zip: string): Promise<void> {
    const { size } = await stat(zip);
    const name = packedZipName(this.title);
    const sent = await hashFile(zip, this.algorithms);
    const stored = await this.inner.putFile([name], { size, open: async () => readLocalFile(zip) }, 'update');
    const differing = Object.keys(stored.hashes).find(
      (algorithm) => sent[algorithm] !== undefined && stored.hashes[algorithm] !== sent[algorithm],
    );
    if (differing) {
      throw new ConnectorError(502, `${name} was stored with a ${differing} that differs from the zip sent.`);
    }
  }
}
