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
import { lucenePhrase } from '../lucene-phrase';
import { freeNumberedTitle } from '../numbered-title';
import { titleSegment } from '../upstream-values';
import { flatFileName } from '../zipped-folders';
import type { InvenioApi } from './api';
import { recordSummary } from './detail';
import { md5Of, ownerOf, recordTitle, totalOf, type FileEntry, type InvenioRecord } from './entities';
import { fileResourceId, parseId } from './ids';
import { MAX_PAGE_SIZE } from './options';
import { ownRecord, userNameOf } from './records';
import type { InvenioSession } from './session';

/**
 * The creator a new draft names: the user (userNameOf), as one personal name in `family_name`, since the
 * profile keeps the full name whole.
 */
async function creatorOf(api: InvenioApi, draft: InvenioRecord): Promise<Record<string, unknown>> {
  return { person_or_org: { type: 'personal', family_name: await userNameOf(api, ownerOf(draft)) } };
}

/**
 * A new draft titled `title` (numbered when the user has that title), with the metadata InvenioRDM's deposit
 * form requires (https://inveniordm.docs.cern.ch/reference/metadata/: title, resource type, publication date,
 * a creator): resource type `dataset`, today's date, the user as creator. The draft is made first because
 * only its `parent.access.owned_by` names the user; the broker never publishes it.
 */
export async function createProject({ api }: InvenioSession, title: string): Promise<ResourceSummary> {
  const wanted = title.trim();
  if (wanted === '') throw new ConnectorError(400, 'An InvenioRDM record needs a title.');
  const unique = await freeNumberedTitle(wanted, async (page) => {
    const found = await api.userRecords({
      page,
      size: MAX_PAGE_SIZE,
      q: `metadata.title:${lucenePhrase(wanted)}`,
    });
    return { titles: found.hits.hits.map(recordTitle), more: page * MAX_PAGE_SIZE < totalOf(found) };
  });
  const metadata = {
    title: unique,
    resource_type: { id: 'dataset' },
    publication_date: new Date().toISOString().slice(0, 10),
  };
  const draft = await api.createDraft(metadata);
  const creators = [await creatorOf(api, draft)];
  return recordSummary(
    await api.updateDraft(draft, { metadata: { ...metadata, ...draft.metadata, creators } }),
  );
}

/** Whether an incoming file holds what InvenioRDM has (by md5), read once for it. */
async function sameContent(file: IncomingFile, existing: FileEntry): Promise<boolean> {
  const md5 = md5Of(existing.checksum);
  return md5 !== null && (await incomingDigest(file, 'md5')) === md5;
}

/** Files going into one draft, each stored as it is put: initialised, sent, committed. */
class DraftWriter implements ResourceWriter {
  private readonly folder: string;
  private readonly created = new CreatedFiles<string>();

  constructor(
    private readonly api: InvenioApi,
    private readonly draft: InvenioRecord,
    private readonly files: Map<string, FileEntry>,
    private readonly options: WriterOptions,
    /** the draft is a new version this writer made, to be discarded whole when the job is taken back */
    private readonly newVersion: boolean,
  ) {
    this.folder = titleSegment(recordTitle(draft));
  }

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    const name = flatFileName(path, 'InvenioRDM', 'a record');
    const existing = this.files.get(name);
    if (existing && (duplicate === 'ignore' || (await sameContent(file, existing))))
      return this.result('ignored', existing);
    // a draft takes a key once: a changed file is deleted and uploaded anew
    if (existing) await this.api.deleteFile(existing);
    const entry = await this.api.initFile(this.draft, name);
    await this.api.putContent(entry, file);
    const stored = await this.api.commitFile(entry);
    this.files.set(name, stored);
    if (existing) return this.result('updated', stored);
    const self = stored.links.self ?? entry.links.self;
    return { ...this.result('created', stored), ...(self ? { staged: this.created.add(self) } : {}) };
  }

  /** Every file was stored when it was put: what earlier runs staged are only the files they created. */
  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  /**
   * A draft made for the job (a new record, or a new version) is discarded whole; in an existing draft, the
   * files the job created go. A file the job replaced keeps its new content.
   */
  async abandon(): Promise<void> {
    if (this.options.newProject || this.newVersion) await this.api.deleteDraft(this.draft);
    else await this.created.removeAll((link) => this.api.deleteFile(link));
  }

  /** Nothing: the broker never publishes; the draft waits for its owner at the instance. */
  async commit(): Promise<void> {}

  private result(outcome: PutFileResult['outcome'], file: FileEntry): PutFileResult {
    const md5 = md5Of(file.checksum);
    return {
      outcome,
      id: fileResourceId(this.draft.id, file.key),
      path: `/${this.folder}/${file.key}`,
      hashes: md5 === null ? {} : { md5 },
    };
  }
}

/**
 * The draft a job writes into: the record's own draft while it was never published; for a published record,
 * a new version's draft with the previous version's files (an edit of a published record keeps its files
 * locked), which InvenioRDM answers again when one is open already.
 */
async function draftToWrite(
  api: InvenioApi,
  record: InvenioRecord,
): Promise<{ draft: InvenioRecord; made: boolean }> {
  if (!record.is_published) return { draft: record, made: false };
  const published = record.is_draft ? await api.record(record.id, record.id) : record;
  const draft = await api.newVersion(published);
  const empty = (await api.files(draft)).length === 0;
  if (empty) await api.importFiles(draft);
  return { draft, made: empty };
}

export async function openWriter(
  { api }: InvenioSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const parsed = parseId(containerId);
  if (!parsed) throw ConnectorError.unknownResource(containerId);
  if (parsed.kind === 'file') throw ConnectorError.notAContainer(containerId);
  const record = await ownRecord(api, parsed.record, containerId);
  const { draft, made } = await draftToWrite(api, record);
  const files = new Map((await api.files(draft)).map((file) => [file.key, file]));
  return new DraftWriter(api, draft, files, options, made);
}
