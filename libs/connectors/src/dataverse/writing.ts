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
import { titleSegment } from '../upstream-values';
import type { DataverseApi } from './api';
import {
  authorField,
  contactField,
  descriptionField,
  OTHER_SUBJECT,
  subjectField,
  titleField,
} from './citation';
import { datasetSummary, readDataset, readOnlyReason } from './detail';
import { uploadDirect } from './direct-upload';
import {
  authorName,
  CHECKSUM_ALGORITHMS,
  checksumOf,
  datasetTitle,
  pathOf,
  type FileMetadata,
} from './entities';
import { fileId, parseId } from './ids';
import { titlesLike } from './listing';
import { asciiJson, formBody, type FormBody } from './multipart-body';
import { checkNames } from './names';
import { nativeContent } from './native-upload';
import type { DataverseSession } from './session';

/** The description a new dataset gets: Dataverse requires one (native-api.html#create-a-dataset-in-a-dataverse-collection). */
const DESCRIPTION = 'Deposited through PresQT.';

/**
 * A new draft dataset in the target's collection, titled `title` or `title (2)`, ... when the user has that
 * title already, with the citation metadata every installation requires: the title, the user as author and
 * contact (their account's name and email), a description, and the subject "Other" (setKeywords changes it
 * when keywords name a subject). Never published: publishing is the user's, at Dataverse.
 */
export async function createProject(
  { api, account, collection }: DataverseSession,
  title: string,
): Promise<ResourceSummary> {
  const wanted = title.trim();
  if (wanted === '') throw new ConnectorError(400, 'A Dataverse dataset needs a title.');
  if (!account.email)
    throw new ConnectorError(
      400,
      'Dataverse needs a contact email for a new dataset, and this account has none.',
    );
  const taken = await titlesLike(api, wanted);
  let unique = wanted;
  for (let n = 2; taken.has(unique); n++) unique = `${wanted} (${n})`;
  const name = authorName(account);
  const fields = [
    titleField(unique),
    authorField(name),
    contactField(name, account.email),
    descriptionField(DESCRIPTION),
    subjectField([OTHER_SUBJECT]),
  ];
  try {
    const created = await api.createDataset(collection, {
      metadataBlocks: { citation: { displayName: 'Citation Metadata', fields } },
    });
    return datasetSummary(created.id, unique);
  } catch (error) {
    if (error instanceof ConnectorError && error.status === 403)
      throw new ConnectorError(
        403,
        `This Dataverse account may not add datasets to the collection '${collection}'.`,
      );
    throw error;
  }
}

/** Where a writer puts files: a dataset, at its top or in one of its folders. */
interface Place {
  datasetId: string;
  /** '' for the dataset's top */
  folder: string;
  /** the dataset's title, as walks name it */
  title: string;
  /** the container's id, named in errors */
  resourceId: string;
}

/** A file as stored, and the checksums that vouch for what storage holds. */
interface Stored {
  metadata: FileMetadata;
  hashes: Record<string, string>;
}

function hashesOf(metadata: FileMetadata): Record<string, string> {
  const checksum = checksumOf(metadata.dataFile);
  return checksum ? { [checksum.algorithm]: checksum.value } : {};
}

/** Whether an incoming file holds what Dataverse has, by the checksum Dataverse keeps of it (read once). */
async function sameContent(file: IncomingFile, existing: FileMetadata): Promise<boolean> {
  const checksum = checksumOf(existing.dataFile);
  return checksum !== null && (await incomingDigest(file, checksum.algorithm)) === checksum.value;
}

/**
 * Files going into a dataset's draft, each stored as it is put (a draft is what the user sees; the service
 * never publishes). Dataverse takes one change of a dataset at a time, so the writer's changes go one after
 * another; a direct upload's bytes go to storage beforehand, in parallel.
 */
class DatasetWriter implements ResourceWriter {
  private readonly created = new CreatedFiles<string>();
  private changes: Promise<unknown> = Promise.resolve();
  /** whether the dataset's store takes direct uploads; undefined until asked */
  private direct: boolean | undefined;
  private checksumType: Promise<{ type: string; algorithm: string }> | undefined;

  constructor(
    private readonly api: DataverseApi,
    private readonly place: Place,
    /** the dataset's files by path as deposited */
    private readonly files: Map<string, FileMetadata>,
    private readonly options: WriterOptions,
  ) {}

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    if (path.length === 0) throw new ConnectorError(400, 'A file needs a name.');
    const name = path[path.length - 1];
    checkNames(path.slice(0, -1), name);
    const folder = [this.place.folder, ...path.slice(0, -1)].filter((part) => part !== '').join('/');
    const key = folder === '' ? name : `${folder}/${name}`;
    const existing = this.files.get(key);
    if (existing && (duplicate === 'ignore' || (await sameContent(file, existing))))
      return this.result('ignored', key, { metadata: existing, hashes: hashesOf(existing) });
    const stored = await this.store(folder, name, file, existing);
    this.files.set(key, stored.metadata);
    if (existing) return this.result('updated', key, stored);
    return {
      ...this.result('created', key, stored),
      staged: this.created.add(String(stored.metadata.dataFile.id)),
    };
  }

  /** Every file was stored when it was put: what earlier runs staged are only the files they created. */
  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  async commit(): Promise<void> {
    // each file is in the draft already; publishing is the user's
  }

  /**
   * A dataset made for the job goes whole (it was never published); in an existing one, the files the job
   * created go. A file the job replaced keeps its new content: Dataverse's replace made a new file.
   */
  async abandon(): Promise<void> {
    const { datasetId } = this.place;
    if (this.options.newProject) await this.api.deleteDataset(datasetId);
    else await this.created.removeAll((id) => this.api.deleteFile(datasetId, id));
  }

  /**
   * Stores a file, or a new file in place of `replacing`: straight to storage where the dataset's store offers
   * it, else through Dataverse's own upload.
   */
  private async store(
    folder: string,
    name: string,
    file: IncomingFile,
    replacing?: FileMetadata,
  ): Promise<Stored> {
    const jsonData = {
      label: name,
      ...(folder === '' ? {} : { directoryLabel: folder }),
      // replacing an ingested file (a `.tab`) with its new upload changes its type
      ...(replacing ? { forceReplace: true } : {}),
    };
    const urls =
      this.direct === false
        ? null
        : await this.api.uploadUrls(this.place.datasetId, file.size, this.place.resourceId);
    this.direct = urls !== null;
    if (urls) {
      const { type, algorithm } = await this.installationChecksum();
      const sent = await uploadDirect(this.api, urls, file, type, algorithm);
      const form = formBody({
        jsonData: asciiJson({
          ...jsonData,
          storageIdentifier: sent.storageIdentifier,
          fileName: name,
          mimeType: 'application/octet-stream',
          checksum: { '@type': sent.checksum.type, '@value': sent.checksum.value },
        }),
      });
      const metadata = await this.change(() => this.register(form, replacing));
      return { metadata, hashes: sent.storageMd5 ? { md5: sent.storageMd5 } : {} };
    }
    // the file is opened when its turn comes, so that no source waits open meanwhile
    const metadata = await this.change(async () => {
      const content = await nativeContent(name, file);
      try {
        return await this.register(formBody({ jsonData: asciiJson(jsonData) }, content.part), replacing);
      } finally {
        content.release();
      }
    });
    return { metadata, hashes: hashesOf(metadata) };
  }

  private async register(form: FormBody, replacing?: FileMetadata): Promise<FileMetadata> {
    const { datasetId, resourceId } = this.place;
    return replacing
      ? this.api.replaceFile(datasetId, String(replacing.dataFile.id), form, resourceId)
      : this.api.addFile(datasetId, form, resourceId);
  }

  /** A change of the dataset, after those before it. */
  private change<T>(task: () => Promise<T>): Promise<T> {
    const run = this.changes.then(task);
    this.changes = run.catch(() => undefined);
    return run;
  }

  /** The installation's checksum type (MD5 where it does not say), sent with a direct upload's file. */
  private installationChecksum(): Promise<{ type: string; algorithm: string }> {
    this.checksumType ??= this.api.fixityAlgorithm().then(
      (type) => (CHECKSUM_ALGORITHMS[type] ? { type, algorithm: CHECKSUM_ALGORITHMS[type] } : MD5),
      () => MD5,
    );
    return this.checksumType;
  }

  private result(outcome: PutFileResult['outcome'], key: string, stored: Stored): PutFileResult {
    return {
      outcome,
      id: fileId(this.place.datasetId, stored.metadata.dataFile.id),
      path: `/${titleSegment(this.place.title)}/${key}`,
      hashes: stored.hashes,
    };
  }
}

const MD5 = { type: 'MD5', algorithm: 'md5' };

/**
 * A writer into a dataset, or into one of its folders (the files' paths then start there). Refused with 403
 * before anything is sent when Dataverse says the user may not edit the dataset (someone else's published
 * dataset); a published dataset of the user's gets its new files in a draft, as Dataverse makes one.
 */
export async function openWriter(
  { api }: DataverseSession,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const parsed = parseId(containerId);
  if (!parsed) throw ConnectorError.unknownResource(containerId);
  if (parsed.kind === 'file') throw ConnectorError.notAContainer(containerId);
  const version = await readDataset(api, parsed.dataset, containerId);
  const readOnly = await readOnlyReason(api, parsed.dataset);
  if (readOnly) throw new ConnectorError(403, readOnly);
  const files = new Map<string, FileMetadata>();
  for await (const file of api.files(parsed.dataset, containerId)) files.set(pathOf(file), file);
  const folder = parsed.kind === 'folder' ? parsed.path : '';
  if (folder !== '' && ![...files.keys()].some((path) => path.startsWith(`${folder}/`)))
    throw ConnectorError.unknownResource(containerId);
  const place = { datasetId: parsed.dataset, folder, title: datasetTitle(version), resourceId: containerId };
  return new DatasetWriter(api, place, files, options);
}
