import { digestStream } from '@app/fixity';
import type { RemoteFile, RemoteFolder } from '../connector';
import { ConnectorError } from '../connector-error';
import type { S3Api } from './api';
import { isMultipartEtag, storedHashes } from './checksums';
import { locateContainer, parseOrUnknown, readLevel, type ListedFile } from './detail';
import { encodeId } from './ids';
import { placeOf, type S3Place, type S3Session } from './session';

/** The checksums S3 may keep of an object's bytes, and that are computed from them where it keeps none. */
const READABLE_HASHES = ['sha256', 'md5'];

/**
 * What S3 keeps of an object's checksums among `wanted` (HeadObject: its full-object SHA-256, its ETag where
 * that is an MD5); where it keeps none of them (a multipart upload without a full-object checksum), the
 * first wanted one computed from the object's bytes.
 */
export async function objectHashes(
  api: S3Api,
  place: S3Place,
  size: number,
  wanted: readonly string[],
  id: string,
  multipart: boolean,
): Promise<Record<string, string>> {
  if (!multipart) {
    const head = await api.head(place.bucket, place.key, id);
    if (!head) throw ConnectorError.unknownResource(id);
    const kept = Object.entries(storedHashes(head)).filter(([algorithm]) => wanted.includes(algorithm));
    if (kept.length > 0) return Object.fromEntries(kept);
  }
  const algorithm = wanted.find((name) => READABLE_HASHES.includes(name));
  if (!algorithm) return {};
  return {
    [algorithm]: (await digestStream(await api.read(place.bucket, place.key, id), [algorithm], size))[
      algorithm
    ],
  };
}

function remoteFile(session: S3Session, path: string, segments: string[], listed: ListedFile): RemoteFile {
  const place = placeOf(session.layout, segments, 'item');
  const id = encodeId(segments, 'item');
  // a multipart upload's ETag and checksum are not of its bytes: they are read for its checksums
  const multipart = isMultipartEtag(listed.etag);
  return {
    kind: 'file',
    path,
    size: listed.size,
    ...(multipart ? { checksumsOfBytes: true as const } : {}),
    sourceHashes: (wanted) => objectHashes(session.api, place, listed.size, wanted, id, multipart),
    open: () => session.api.read(place.bucket, place.key, id),
  };
}

/** A container's files by name, then each folder and what it holds, a level read at a time. */
async function* walkLevel(
  session: S3Session,
  segments: string[],
  path: string,
  level: Awaited<ReturnType<typeof readLevel>>,
): AsyncGenerator<RemoteFolder | RemoteFile> {
  for (const file of level.files)
    yield remoteFile(session, `${path}/${file.name}`, [...segments, file.name], file);
  for (const folder of level.folders) {
    const below = [...segments, folder];
    yield { kind: 'folder', path: `${path}/${folder}` };
    const place = placeOf(session.layout, below, 'container');
    yield* walkLevel(
      session,
      below,
      `${path}/${folder}`,
      await readLevel(session.api, place, encodeId(below, 'container')),
    );
  }
}

/** A project or folder and everything below it, depth first, or a single file. */
export async function* walk(session: S3Session, id: string): AsyncGenerator<RemoteFolder | RemoteFile> {
  const parsed = parseOrUnknown(id);
  const title = parsed.segments[parsed.segments.length - 1];
  if (parsed.kind === 'item') {
    const place = placeOf(session.layout, parsed.segments, 'item');
    const head = await session.api.head(place.bucket, place.key, id);
    if (!head) throw ConnectorError.unknownResource(id);
    const listed = { name: title, size: head.ContentLength ?? 0, etag: head.ETag };
    yield remoteFile(session, title, parsed.segments, listed);
    return;
  }
  const { level } = await locateContainer(session, parsed, id);
  yield { kind: 'folder', path: title };
  yield* walkLevel(session, parsed.segments, title, level);
}
