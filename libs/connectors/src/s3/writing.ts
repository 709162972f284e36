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
import { mapLimited } from '../map-limited';
import { checkPathNames, portableNameProblem } from '../name-rules';
import type { S3Api, StoredObject } from './api';
import { fullObjectSha256, etagMd5, storedHashes } from './checksums';
import { locateContainer, parseOrUnknown, summarize } from './detail';
import { BUCKET_NAME } from './options';
import { placeOf, type S3Place, type S3Session } from './session';
import { objectHashes } from './walking';

/** S3's longest key, in bytes of UTF-8 (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html). */
const MAX_KEY_BYTES = 1024;
/** Objects deleted at once when a project or the files of a job are taken back. */
const DELETED_AT_ONCE = 8;
/** How many numbered titles createProject tries before it gives up. */
const MAX_NUMBERED = 100;

/** A name S3 keeps as one segment of a key: any portable name (no `/`, no backslash, not blank). */
export function s3NameProblem(name: string): string | null {
  return portableNameProblem(name);
}

function checkKey(place: S3Place, path: readonly string[]): void {
  checkPathNames(path, s3NameProblem, 'this target');
  if (Buffer.byteLength(place.key) > MAX_KEY_BYTES)
    throw new ConnectorError(
      400,
      `'${path.join('/')}' is too long for S3: a key holds ${MAX_KEY_BYTES} bytes.`,
    );
}

/** `title`, `title (2)`, ... */
function numbered(title: string, n: number): string {
  return n === 1 ? title : `${title} (${n})`;
}

/**
 * A bucket name for a title (lower case, letters, digits and `-`, 3 to 63 characters), numbered `-2`, ...
 * as S3's naming rules allow (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
 */
function bucketName(title: string, n: number): string {
  const suffix = n === 1 ? '' : `-${n}`;
  const base = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63 - suffix.length)
    .replace(/-+$/, '');
  const name = `${base.length < 3 ? `presqt-${base}`.replace(/-$/, '') : base}${suffix}`;
  if (!BUCKET_NAME.test(name)) throw new ConnectorError(400, `'${title}' cannot be made into a bucket name.`);
  return name;
}

/**
 * A new project: in a bucket, the prefix `title/` (or `title (2)/`, ... when the user has it), made by its
 * folder marker (a zero-byte object named as the prefix, which the S3 console makes for a folder), written
 * only where no object has the key (`If-None-Match: *`); without a bucket, a new bucket named after the
 * title.
 */
export async function createProject(session: S3Session, title: string): Promise<ResourceSummary> {
  checkPathNames([title], s3NameProblem, 'this target');
  const { api, layout } = session;
  for (let n = 1; n <= MAX_NUMBERED; n++) {
    if (layout.bucket === undefined) {
      const name = bucketName(title, n);
      if (await api.createBucket(name)) return summarize([name], 'container');
      continue;
    }
    const name = numbered(title, n);
    const place = placeOf(layout, [name], 'container');
    const taken = await api.listLevel(place.bucket, place.key, 1);
    if ((taken.Contents?.length ?? 0) + (taken.CommonPrefixes?.length ?? 0) > 0) continue;
    try {
      await api.putSmall(place.bucket, place.key, Buffer.alloc(0), true);
      return summarize([name], 'container');
    } catch (error) {
      // made at the same moment by someone else
      if (!(error instanceof ConnectorError && error.status === 412)) throw error;
    }
  }
  throw new ConnectorError(409, `The titles '${title}' to '${numbered(title, MAX_NUMBERED)}' are all taken.`);
}

/** Whether an incoming file holds what is stored: by S3's full-object SHA-256 or MD5, else by reading it. */
async function sameContent(api: S3Api, place: S3Place, file: IncomingFile, stored: StoredObject, id: string) {
  const sha256 = fullObjectSha256(stored);
  if (sha256) return (await incomingDigest(file, 'sha256')) === sha256;
  const md5 = etagMd5(stored);
  if (md5) return (await incomingDigest(file, 'md5')) === md5;
  if ((stored.ContentLength ?? 0) !== file.size) return false;
  const read = await objectHashes(api, place, file.size, ['sha256'], id, true);
  return (await incomingDigest(file, 'sha256')) === read.sha256;
}

/**
 * Files going into one project or folder, each stored as it is put (S3 has no staging): a created file is
 * remembered (and staged, for a resumed run) so that a failed or cancelled job takes it back. A replaced
 * file keeps its new content: without versioning, S3 keeps no earlier one.
 */
class S3Writer implements ResourceWriter {
  /** each file's key with the folder markers made for it, removed in the reverse order */
  private readonly created = new CreatedFiles<S3Place[]>();
  /** the folders below the container known to have their marker */
  private readonly marked = new Set<string>();

  constructor(
    private readonly session: S3Session,
    private readonly segments: string[],
    private readonly options: WriterOptions,
  ) {}

  async putFile(
    path: readonly string[],
    file: IncomingFile,
    duplicate: DuplicateAction,
  ): Promise<PutFileResult> {
    const { api, layout } = this.session;
    const segments = [...this.segments, ...path];
    const place = placeOf(layout, segments, 'item');
    checkKey(place, path);
    const { id } = summarize(segments, 'item');
    const result = (outcome: PutFileResult['outcome'], stored: StoredObject, multipart = false) => ({
      outcome,
      id,
      path: `/${segments.join('/')}`,
      hashes: storedHashes(stored, multipart),
    });
    const existing = await api.head(place.bucket, place.key, id);
    if (existing && (duplicate === 'ignore' || (await sameContent(api, place, file, existing, id))))
      return result('ignored', existing);
    const markers = await this.markFolders(path.slice(0, -1));
    const { stored, multipart } = await api.upload(place.bucket, place.key, await file.open());
    const outcome = existing ? 'updated' : 'created';
    if (existing && markers.length === 0) return result(outcome, stored, multipart);
    const made = existing ? markers : [...markers, place];
    return { ...result(outcome, stored, multipart), staged: this.created.add(made) };
  }

  /**
   * Gives each folder on a file's way below the container its marker object (`folder/`, as the S3 console
   * makes a folder) where it has none, so that tools which list a level at a time see the folder whatever
   * it holds (s3rver, for one, finds no prefix whose keys all sit a level deeper); answers the markers made.
   */
  private async markFolders(folders: readonly string[]): Promise<S3Place[]> {
    const { api, layout } = this.session;
    const made: S3Place[] = [];
    for (let depth = 1; depth <= folders.length; depth++) {
      const below = folders.slice(0, depth);
      if (this.marked.has(below.join('/'))) continue;
      const marker = placeOf(layout, [...this.segments, ...below], 'container');
      if (!(await api.head(marker.bucket, marker.key))) {
        await api.putSmall(marker.bucket, marker.key, Buffer.alloc(0));
        made.push(marker);
      }
      this.marked.add(below.join('/'));
    }
    return made;
  }

  restage(staged: readonly unknown[]): void {
    this.created.restage(staged);
  }

  /** Nothing: every file was stored as it was put. */
  async commit(): Promise<void> {}

  /**
   * A project made for the job goes whole (every key below it, and its bucket where it is one); elsewhere
   * the files the job created go.
   */
  async abandon(): Promise<void> {
    const { api, layout } = this.session;
    if (!this.options.newProject) {
      await this.created.removeAll(async (places) => {
        for (const place of [...places].reverse()) await api.remove(place.bucket, place.key);
      });
      return;
    }
    const project = placeOf(layout, this.segments.slice(0, 1), 'container');
    let keys: string[];
    do {
      keys = [];
      for await (const key of api.keysBelow(project.bucket, project.key)) {
        keys.push(key);
        if (keys.length >= 1000) break;
      }
      await mapLimited(keys, DELETED_AT_ONCE, (key) => api.remove(project.bucket, key));
    } while (keys.length > 0);
    if (layout.bucket === undefined) await api.removeBucket(project.bucket);
  }
}

/** Starts writing into a project or folder; 400 for a file, 404 for nothing. */
export async function openWriter(
  session: S3Session,
  containerId: string,
  options: WriterOptions,
): Promise<ResourceWriter> {
  const parsed = parseOrUnknown(containerId);
  if (parsed.kind === 'item') throw ConnectorError.notAContainer(containerId);
  await locateContainer(session, parsed, containerId);
  return new S3Writer(session, parsed.segments, options);
}
