import { FTS_METADATA_FILE, MAX_FTS_METADATA_BYTES, parseFtsMetadata, type FtsMetadata } from '@app/metadata';
import { ConnectorError } from '../connector-error';
import { locateContainer, parseOrUnknown } from './detail';
import { placeOf, type S3Place, type S3Session } from './session';

/**
 * Keywords are kept in the container's metadata file, `PRESQT_FTS_METADATA.json` (its `allKeywords`), which
 * every job that writes into the container also keeps (docs/behaviour.md#metadata-file), rather than as
 * object tags: S3 tags belong to objects (a prefix has none), at most 10 an object, their values in a narrow
 * character set (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html).
 */
async function metadataPlace(session: S3Session, id: string): Promise<S3Place> {
  const parsed = parseOrUnknown(id);
  if (parsed.kind === 'item')
    throw new ConnectorError(
      400,
      'PresQT Error: files on this target have no keywords; projects and folders do.',
    );
  await locateContainer(session, parsed, id);
  return placeOf(session.layout, [...parsed.segments, FTS_METADATA_FILE], 'item');
}

/** The metadata file's content when it is there, valid and small enough to hold; null otherwise. */
async function readMetadata(session: S3Session, place: S3Place, id: string): Promise<FtsMetadata | null> {
  const head = await session.api.head(place.bucket, place.key, id);
  if (!head || (head.ContentLength ?? 0) > MAX_FTS_METADATA_BYTES) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of await session.api.read(place.bucket, place.key, id)) chunks.push(chunk as Buffer);
  return parseFtsMetadata(Buffer.concat(chunks).toString('utf8'));
}

export async function keywords(session: S3Session, id: string): Promise<string[]> {
  const place = await metadataPlace(session, id);
  return (await readMetadata(session, place, id))?.allKeywords ?? [];
}

/** Replaces the keywords in the container's metadata file (made when it has none), its actions kept. */
export async function setKeywords(
  session: S3Session,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  const place = await metadataPlace(session, id);
  const metadata: FtsMetadata = (await readMetadata(session, place, id)) ?? { allKeywords: [], actions: [] };
  const updated = { ...metadata, allKeywords: [...keywords] };
  await session.api.putSmall(place.bucket, place.key, Buffer.from(JSON.stringify(updated, null, 2)));
  return [...keywords];
}
