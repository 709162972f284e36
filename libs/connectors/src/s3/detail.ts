import type { ResourceDetail, ResourceKind, ResourceSummary } from '../connector';
import { ConnectorError } from '../connector-error';
import { byName } from '../upstream-values';
import type { S3Api } from './api';
import { storedHashes } from './checksums';
import { encodeId, isWalkableName, parseId, type ParsedId } from './ids';
import { placeOf, type S3Place, type S3Session } from './session';

export function summarize(segments: readonly string[], kind: ResourceKind): ResourceSummary {
  return {
    kind,
    kindName: kind === 'item' ? 'file' : segments.length === 1 ? 'project' : 'folder',
    id: encodeId(segments, kind),
    container: segments.length === 1 ? null : encodeId(segments.slice(0, -1), 'container'),
    title: segments[segments.length - 1],
  };
}

/** An object directly in a container, as its listing gives it. */
export interface ListedFile {
  name: string;
  size: number;
  etag?: string;
  lastModified?: Date;
}

/** What one level of a container holds: its files and the names of its folders, each by name. */
export interface Level {
  files: ListedFile[];
  folders: string[];
  /** the newest date of the level's own objects (its folder marker's, or its files') */
  modified?: Date;
  /** whether anything has the container's prefix: a marker (an empty folder), a file or a folder */
  found: boolean;
}

/**
 * One level of a container, every page of it (ListObjectsV2 with `/` as the delimiter): its files and its
 * folders. The zero-byte object named as the prefix itself (`folder/`, as the S3 console makes a folder)
 * marks a folder that may be empty; it is not a file. Keys whose names a walk cannot hold (empty, `.`,
 * `..`) are passed over.
 */
export async function readLevel(api: S3Api, place: S3Place, resourceId: string): Promise<Level> {
  const level: Level = { files: [], folders: [], found: false };
  const newest = (date?: Date) => {
    if (date && (!level.modified || date > level.modified)) level.modified = date;
  };
  let token: string | undefined;
  do {
    const page = await api.listLevel(place.bucket, place.key, 1000, token, resourceId);
    for (const object of page.Contents ?? []) {
      level.found = true;
      newest(object.LastModified);
      const name = (object.Key ?? '').slice(place.key.length);
      if (!isWalkableName(name)) continue;
      level.files.push({
        name,
        size: object.Size ?? 0,
        etag: object.ETag,
        lastModified: object.LastModified,
      });
    }
    for (const common of page.CommonPrefixes ?? []) {
      level.found = true;
      const name = (common.Prefix ?? '').slice(place.key.length, -1);
      if (isWalkableName(name)) level.folders.push(name);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  level.files.sort((a, b) => byName(a.name, b.name));
  level.folders.sort(byName);
  return level;
}

/** The container an id names, with its first level; 404 when nothing has its prefix. */
export async function locateContainer(
  session: S3Session,
  parsed: ParsedId,
  id: string,
): Promise<{ place: S3Place; level: Level }> {
  const place = placeOf(session.layout, parsed.segments, 'container');
  const level = await readLevel(session.api, place, id);
  // a bucket is a project, empty or not, when its listing answers
  const bucketProject = session.layout.bucket === undefined && parsed.segments.length === 1;
  if (!level.found && !bucketProject) throw ConnectorError.unknownResource(id);
  return { place, level };
}

export function parseOrUnknown(id: string): ParsedId {
  const parsed = parseId(id);
  if (!parsed) throw ConnectorError.unknownResource(id);
  return parsed;
}

const EPOCH = new Date(0).toISOString();

export async function getResource(session: S3Session, id: string): Promise<ResourceDetail> {
  const parsed = parseOrUnknown(id);
  const { segments } = parsed;
  const { kind, kindName, title } = summarize(segments, parsed.kind);
  if (parsed.kind === 'item') {
    const place = placeOf(session.layout, segments, 'item');
    const object = await session.api.head(place.bucket, place.key, id);
    if (!object) throw ConnectorError.unknownResource(id);
    const hashes = storedHashes(object);
    // S3 writes an object whole, so its one date is both
    const date = (object.LastModified ?? new Date(0)).toISOString();
    return {
      kind,
      kindName,
      id,
      title,
      dateCreated: date,
      dateModified: date,
      hashes: { md5: hashes.md5 ?? null, sha256: hashes.sha256 ?? null },
      extra: { bucket: place.bucket, key: place.key, size: object.ContentLength ?? 0, etag: object.ETag },
      children: [],
    };
  }
  const { place, level } = await locateContainer(session, parsed, id);
  const date = level.modified?.toISOString() ?? EPOCH;
  return {
    kind,
    kindName,
    id,
    title,
    dateCreated: date,
    dateModified: date,
    hashes: { md5: null, sha256: null },
    extra: { bucket: place.bucket, prefix: place.key },
    children: [
      ...level.folders.map((name) => summarize([...segments, name], 'container')),
      ...level.files.map((file) => summarize([...segments, file.name], 'item')),
    ],
  };
}
