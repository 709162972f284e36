import { Readable } from 'node:stream';
import {
  FTS_METADATA_FILE,
  MAX_FTS_METADATA_BYTES,
  ftsMetadataBytes,
  ftsMetadataSize,
  parseFtsMetadata,
  type FtsMetadata,
} from '@app/metadata';
import type { ConnectorSession, RemoteFile, ResourceWriter } from './connector';

/** Whether a walked file is the metadata file at the top of the walked resource. */
export function isTopMetadataFile(file: RemoteFile, resourceTitle: string): boolean {
  return file.path === `${resourceTitle}/${FTS_METADATA_FILE}`;
}

/** The metadata file's content when it is valid and small enough to merge; null otherwise (docs/behaviour.md#metadata-file). */
export async function readMetadataFile(file: RemoteFile): Promise<FtsMetadata | null> {
  if (file.size > MAX_FTS_METADATA_BYTES) return null;
  return parseFtsMetadata(await readAll(await file.open()));
}

/** The valid metadata file directly inside a container, if it has one (its files come first in a walk). */
export async function findMetadataFile(
  session: ConnectorSession,
  containerId: string,
): Promise<FtsMetadata | null> {
  let title: string | undefined;
  for await (const entry of session.walk(containerId)) {
    if (title === undefined) {
      title = entry.path;
      continue;
    }
    if (entry.kind === 'folder') break;
    if (isTopMetadataFile(entry, title)) return readMetadataFile(entry);
  }
  return null;
}

/** Writes the metadata file at the top of the writer's container, replacing the one merged into it. */
export async function writeMetadataFile(writer: ResourceWriter, metadata: FtsMetadata): Promise<void> {
  await writer.putFile(
    [FTS_METADATA_FILE],
    { size: await ftsMetadataSize(metadata), open: async () => Readable.from(ftsMetadataBytes(metadata)) },
    'update',
  );
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
