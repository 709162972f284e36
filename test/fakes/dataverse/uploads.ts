import type { Request, Response } from 'express';
import multer from 'multer';
import * as yauzl from 'yauzl';
import type { FakeAnswer, FakeRequest } from '../fake-server';
import { fail, type FakeContext, type ZipReader } from './common';
import { isIngestable, startIngest, typeByName } from './ingest';
import { fileMetadataJson, ok } from './json';
import {
  checksumOf,
  type ChecksumType,
  type Dataset,
  type DataFile,
  type FileEntry,
  type User,
} from './model';

/**
 * Adding and replacing files as Dataverse does (Datasets.addFileToDataset, Files.replaceFileInDataset,
 * AddReplaceFileHelper and CreateNewDataFilesCommand in IQSS/dataverse; native-api.html#add-a-file-to-a-dataset,
 * #replacing-files, developers/s3-direct-upload-api.html). A form brings the file's bytes (`file`), or for a
 * direct upload only `jsonData` naming what was sent to the store. Bytes that are a zip are unpacked into
 * their entries (the type comes from the content, not the name), each entry's folder its File Path.
 */

const parseForm = multer({ storage: multer.memoryStorage() }).any();

export interface Form {
  json: Record<string, unknown>;
  file?: { name: string; content: Buffer };
}

/** The form of an upload; null once a 400 is answered (Dataverse's messages). */
export async function readForm(request: FakeRequest, answer: FakeAnswer): Promise<Form | null> {
  const req = request.raw as unknown as Request & { files?: Express.Multer.File[] };
  await new Promise<void>((resolve, reject) =>
    parseForm(req, {} as Response, (error?: unknown) => (error instanceof Error ? reject(error) : resolve())),
  );
  const fields = (req.body ?? {}) as Record<string, string>;
  let json: Record<string, unknown> = {};
  try {
    if (fields.jsonData) json = JSON.parse(fields.jsonData) as Record<string, unknown>;
  } catch {
    return (fail(answer, 400, 'Error in parsing provided json'), null);
  }
  const part = req.files?.find((file) => file.fieldname === 'file');
  if (!part && typeof json.storageIdentifier !== 'string')
    return (
      fail(
        answer,
        400,
        'You must upload a file or provide a valid storageidentifier, filename, and mimetype.',
      ),
      null
    );
  return { json, file: part ? { name: part.originalname, content: part.buffer } : undefined };
}

const ZIP = Buffer.from([0x50, 0x4b]);

/**
 * A zip's file entries, with their paths; skipped as Dataverse skips them: folders, `._*`, `.DS_Store`. Null
 * for a zip that `reader` cannot read (ZipReader).
 */
async function unzip(
  content: Buffer,
  reader: ZipReader,
): Promise<{ path: string; content: Buffer }[] | null> {
  const zip = await new Promise<yauzl.ZipFile | null>((resolve) =>
    yauzl.fromBuffer(content, { lazyEntries: true }, (error, file) => resolve(error ? null : file)),
  );
  if (!zip) return null;
  const entries: { path: string; content: Buffer }[] = [];
  const read = await new Promise<null | void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (reader === 'ZipInputStream' && refusedByZipInputStream(entry)) {
        zip.close();
        return resolve(null);
      }
      const name = entry.fileName.slice(entry.fileName.lastIndexOf('/') + 1);
      if (
        entry.fileName.endsWith('/') ||
        name.startsWith('._') ||
        name.startsWith('.DS_Store') ||
        name === ''
      )
        return zip.readEntry();
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          entries.push({ path: entry.fileName, content: Buffer.concat(chunks) });
          zip.readEntry();
        });
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return read === null ? null : entries;
}

/** A stored entry followed by a data descriptor (general purpose bit 3), which ZipInputStream refuses. */
function refusedByZipInputStream(entry: yauzl.Entry): boolean {
  return (entry.generalPurposeBitFlag & 0x8) !== 0 && entry.compressionMethod !== 8;
}

/** StringUtil.sanitizeFileDirectory: one `/` for runs of slashes, ends stripped of `/`, `-`, `.` and spaces. */
export function sanitizeDirectory(value: string, aggressively = false): string | undefined {
  let path = value.replace(/[\\/]+/g, '/');
  if (aggressively) path = path.replace(/[^A-Za-z0-9_ ./-]+/g, '.').replace(/\.\.+/g, '.');
  path = path.replace(/^[/\-. ]+/, '').replace(/[/\-. ]+$/, '');
  return path === '' ? undefined : path;
}

/** Why Dataverse refuses a file's label or folder (FileMetadata's constraints, ValidationMessages.properties). */
function invalid(entry: FileEntry): string | null {
  if (entry.label.trim() === '') return 'Please specify a file name.';
  if (/[:<>;#/"*|?\\]/.test(entry.label))
    return 'File Name cannot contain any of the following characters: \\ / : * ? " < > | ; # .';
  if (entry.directoryLabel !== undefined && !/^[\w\\/. -]+$/.test(entry.directoryLabel))
    return "Directory Name cannot contain invalid characters. Valid characters are a-Z, 0-9, '_', '-', '.', '\\', '/' and ' ' (white space).";
  return null;
}

/** A new file, named as the form says, in a folder (`jsonData.directoryLabel` wins over a zip entry's). */
interface Incoming {
  label: string;
  directoryLabel?: string;
  content: Buffer;
  contentType: string;
  /** a direct upload's checksum, as the client gave it (Dataverse does not check it) */
  checksum?: { type: ChecksumType; value: string };
}

/** The files a form brings: a direct upload's stored object, or the bytes (a zip's entries). Null once refused. */
export async function incomingFiles(
  context: FakeContext,
  form: Form,
  answer: FakeAnswer,
): Promise<Incoming[] | null> {
  const { json } = form;
  const label = typeof json.label === 'string' ? json.label : undefined;
  const folder = typeof json.directoryLabel === 'string' ? sanitizeDirectory(json.directoryLabel) : undefined;
  if (typeof json.storageIdentifier === 'string') {
    const content = context.stored(json.storageIdentifier);
    if (!content)
      return (
        fail(answer, 400, 'Dataset store configuration does not allow provided storageIdentifier.'),
        null
      );
    const given = json.checksum as { '@type'?: string; '@value'?: string } | undefined;
    const type = (given?.['@type'] ?? 'MD5') as ChecksumType;
    const value = given?.['@value'] ?? (typeof json.md5Hash === 'string' ? json.md5Hash : '');
    return [
      {
        label: label ?? (typeof json.fileName === 'string' ? json.fileName : ''),
        directoryLabel: folder,
        content,
        contentType: typeof json.mimeType === 'string' ? json.mimeType : 'application/octet-stream',
        checksum: { type, value },
      },
    ];
  }
  const file = form.file!;
  const entries = file.content.subarray(0, 2).equals(ZIP)
    ? await unzip(file.content, context.zipReader())
    : null;
  if (entries && entries.length > 0)
    return entries.map((entry) => {
      const name = entry.path.slice(entry.path.lastIndexOf('/') + 1);
      const inZip = entry.path.includes('/')
        ? sanitizeDirectory(entry.path.slice(0, entry.path.lastIndexOf('/')), true)
        : undefined;
      return {
        label: label ?? name,
        directoryLabel: folder ?? inZip,
        content: entry.content,
        contentType: typeByName(name),
      };
    });
  return [
    {
      label: label ?? file.name,
      directoryLabel: folder,
      content: file.content,
      contentType: typeByName(file.name),
    },
  ];
}

/** A label not yet used in the folder: `name-1.ext`, ... as Dataverse renames a duplicate (IngestUtil). */
function uniqueLabel(entries: readonly FileEntry[], label: string, folder: string | undefined): string {
  const taken = (candidate: string) =>
    entries.some((entry) => entry.label === candidate && entry.directoryLabel === folder);
  if (!taken(label)) return label;
  const dot = label.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [label.slice(0, dot), label.slice(dot)] : [label, ''];
  let n = 1;
  while (taken(`${stem}-${n}${extension}`)) n++;
  return `${stem}-${n}${extension}`;
}

/**
 * Stores the incoming files in the dataset's draft (made when it has none), starting the ingest of tabular
 * ones unless `tabIngest` is false, and answers them (ok(jsonDataFileList)); `replacing` is the entry a
 * replace takes the place of.
 */
export function store(
  context: FakeContext,
  dataset: Dataset,
  caller: User,
  incoming: Incoming[],
  form: Form,
  answer: FakeAnswer,
  replacing?: FileEntry,
): void {
  const { state } = context;
  const draft = state.draftOf(dataset);
  const made: FileEntry[] = [];
  for (const file of incoming) {
    const entry: FileEntry = {
      label: file.label,
      directoryLabel: file.directoryLabel,
      description: '',
      restricted: false,
      dataFileId: 0,
    };
    const problem = invalid(entry);
    if (problem) return fail(answer, 400, problem);
    const others = draft.files.filter((other) => other !== replacing);
    entry.label = uniqueLabel([...others, ...made], entry.label, entry.directoryLabel);
    const stored: DataFile = state.storeFile(file.content, file.contentType);
    if (file.checksum) {
      stored.checksumType = file.checksum.type;
      stored.checksum = file.checksum.value;
    }
    entry.dataFileId = stored.id;
    made.push(entry);
    if (form.json.tabIngest !== false && form.json.tabIngest !== 'false' && isIngestable(stored.contentType))
      startIngest(dataset, stored, context.ingestMs(), `@${caller.userName}`);
  }
  if (replacing) {
    draft.files = draft.files.flatMap((entry) => (entry === replacing ? made : [entry]));
    if (!state.isHeld(replacing.dataFileId)) state.files.delete(replacing.dataFileId);
  } else draft.files.push(...made);
  draft.lastUpdateTime = state.now();
  answer.json(200, ok({ files: made.map((entry) => fileMetadataJson(state, entry, draft)) }));
}

export function sameContent(context: FakeContext, entry: FileEntry, content: Buffer): boolean {
  const file = context.state.files.get(entry.dataFileId)!;
  return (
    checksumOf(file.checksumType, file.original?.content ?? file.content) ===
    checksumOf(file.checksumType, content)
  );
}
