import type {
  DuplicateAction,
  IncomingFile,
  PutFileResult,
  ResourceSummary,
  ResourceWriter,
  WriterOptions,
} from '../connector';
import { CreatedFiles } from '../created-files';
import { ConnectorError } from '../connector-error';
import { incomingDigest } from '../incoming-digest';
import { lucenePhrase } from '../lucene-phrase';
import { freeNumberedTitle } from '../numbered-title';
import { titleSegment } from '../upstream-values';
import { flatFileName } from '../zipped-folders';
import type { ZenodoApi } from './api';
import { depositionTitle, md5Of, userName, type Deposition, type DepositionFile } from './entities';
import { fileResourceId, parseId } from './ids';
import { depositionSummary } from './detail';
import { MAX_PAGE_SIZE } from './options';
import { ownDeposition } from './published';
import type { ZenodoSession } from './session';

/** Zenodo wants a description before it publishes (https://developers.zenodo.org/#representation). */
const DESCRIPTION = 'Deposited through PresQT.';

/** A new deposition titled `title`, or `title (2)`, `title (3)`, ... when the user has that title already. */
export async function createProject(
  { api, uploadType }: ZenodoSession,
  title: string,
): Promise<ResourceSummary> {
  const wanted = title.trim();
  if (wanted === '') throw new ConnectorError(400, 'A Zenodo deposition needs a title.');
  const unique = await freeNumberedTitle(wanted, async (page) => {
    const found = await api.depositions({ page, size: MAX_PAGE_SIZE, q: `title:${lucenePhrase(wanted)}` });
    return { titles: found.map(depositionTitle), more: found.length === MAX_PAGE_SIZE };
  });
  const created = await api.create();
  const metadata = {
    title: unique,
    upload_type: uploadType,
    description: DESCRIPTION,
    creators: [{ name: userName(created.owner) }],
  };
  return depositionSummary(await api.updateMetadata(created.id, metadata, String(created.id)));
}

/** Whether an incoming file holds what Zenodo has (by md5), read once for it. */
async function sameContent(file: IncomingFile, existing: DepositionFile): Promise<boolean> {
  const md5 = md5Of(existing.checksum);
  return md5 !== null && (await incomingDigest(file, 'md5')) === md5;
}

/** Files going into one unpublished deposition, each stored as it is put (nothing waits for the commit). */
class DepositionWriter implements ResourceWriter {
  private readonly files: Map<string, DepositionFile>;
  private readonly folder: string;
  private readonly created = new CreatedFiles<string>();

  constructor(
    private readonly api: ZenodoApi,
    private readonly deposition: Deposition,
    private readonly bucket: string,
    private readonly options: WriterOptions,
    /** publish a deposition made for the job once its files are in */
    private readonly publish: boolean,
  ) {
    this.files = new Map((deposition.files ?? []).map((file) => [file.filename, file]));
    this.folder = titleSegment(depositionTitle(deposition));
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    const name = flatFileName(path, 'Zenodo', 'a deposition');
    const existing = this.files.get(name);
    if (existing && (duplicate === 'ignore' || (await sameContent(file, existing))))
      return this.result('ignored', existing, existing.checksum);
    // the bucket API replaces a file of the same name
    const stored = await this.api.putObject(this.bucket, name, file);
    const listed = await this.listed(name);
    this.files.set(name, listed);
    if (existing) return this.result('updated', listed, stored.checksum);
    return { ...this.result('created', listed, stored.checksum), staged: this.created.add(listed.id) };
  }

  /** Every file was stored when it was put: what earlier runs staged are only the files they created. */
  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  /**
   * A deposition made for the job goes whole; in an existing one, the files the job created go. A file the
   * job replaced keeps its new content: Zenodo's bucket replaced the old one.
   */
  async abandon(): Promise<void> {
    const id = this.deposition.id;
    if (this.options.newProject) await this.api.deleteDeposition(id);
    else await this.created.removeAll((fileId) => this.api.deleteFile(id, fileId));
  }

  /** Publishes a deposition made for this job, when the target is set to publish. */
  async commit(): Promise<void> {
    if (this.options.newProject && this.publish)
      await this.api.publish(this.deposition.id, String(this.deposition.id));
  }

  /** The deposition file Zenodo lists under `name`, for its id (the bucket's answer does not carry it). */
  private async listed(name: string): Promise<DepositionFile> {
    const files = await this.api.files(this.deposition.id, String(this.deposition.id));
    const found = files.find((file) => file.filename === name);
    if (!found) throw new ConnectorError(502, `Zenodo does not list the file '${name}' it was sent.`);
    return found;
  }

  private result(outcome: PutFileResult['outcome'], file: DepositionFile, checksum: string): PutFileResult {
    const md5 = md5Of(checksum);
    return {
      outcome,
      id: fileResourceId(this.deposition.id, file.id),
      path: `/${this.folder}/${file.filename}`,
      hashes: md5 === null ? {} : { md5 },
    };
  }
}

export async function openWriter(
  { api, publish }: ZenodoSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const parsed = parseId(containerId);
  if (!parsed) throw ConnectorError.unknownResource(containerId);
  if (parsed.kind === 'file') throw ConnectorError.notAContainer(containerId);
  const deposition = await ownDeposition(api, parsed.deposition, containerId);
  if (deposition.submitted)
    throw new ConnectorError(
      400,
      `Deposition ${containerId} is published: Zenodo takes new files only into a new version of it, ` +
        'which this service does not make. Upload into a new deposition instead.',
    );
  const bucket = deposition.links?.bucket;
  if (!bucket) throw new ConnectorError(502, `Zenodo gave no file bucket for deposition ${containerId}.`);
  return new DepositionWriter(api, deposition, bucket, options, publish);
}
