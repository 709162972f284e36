import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import { stringifySpilled, type SpilledList } from '@app/common';
import schema from './fts-metadata.schema.json';

/** The service's metadata file, kept with every resource it moves (docs/behaviour.md#metadata-file). */
export const FTS_METADATA_FILE = 'PRESQT_FTS_METADATA.json';
/** Larger metadata files are not read for merging (a real one is a few kilobytes). */
export const MAX_FTS_METADATA_BYTES = 4 << 20;
/** Where an existing file that does not follow the schema is kept. */
export const INVALID_FTS_METADATA_FILE = 'INVALID_PRESQT_FTS_METADATA.json';

export interface FtsFileEntry {
  sourcePath: string;
  title: string;
  sourceHashes: Record<string, string | null>;
  destinationHashes: Record<string, string | null>;
  destinationPath: string;
  failedFixityInfo: Array<{ NewGeneratedHash: string; algorithmUsed: string; reasonFixityFailed: string }>;
  extra: Record<string, unknown>;
}

/**
 * The files an action lists: the entries, or, in the action of the job writing the file, the JSON-lines file
 * of them (one per file the job handled, which may be 100,000), which stringifySpilled reads back.
 */
export type FtsFileList = FtsFileEntry[] | SpilledList<FtsFileEntry>;

export interface FtsAction {
  id: string;
  details: string;
  actionDateTime: string;
  actionType: string;
  sourceTargetName: string;
  destinationTargetName: string | null;
  sourceUsername: string | number | null;
  destinationUsername: string | number | null;
  keywords: Record<string, unknown>;
  files: { created: FtsFileList; updated: FtsFileList; ignored: FtsFileList };
}

export interface FtsMetadata {
  allKeywords: string[];
  actions: FtsAction[];
  extra_metadata?: Record<string, unknown>;
}

const validate = new Ajv({ allErrors: false, allowUnionTypes: true }).compile<FtsMetadata>(schema);

/** The metadata file's content, in UTF-8 pieces, with the spilled file lists read back as it goes. */
export async function* ftsMetadataBytes(metadata: FtsMetadata): AsyncIterable<Buffer> {
  for await (const piece of stringifySpilled(metadata)) yield Buffer.from(piece);
}

/** The metadata file's size in bytes, counted on a pass of its own: its file lists may be too long to hold. */
export async function ftsMetadataSize(metadata: FtsMetadata): Promise<number> {
  let size = 0;
  for await (const piece of ftsMetadataBytes(metadata)) size += piece.length;
  return size;
}

/** The parsed file when it is JSON that follows the schema; null otherwise. */
export function parseFtsMetadata(text: string): FtsMetadata | null {
  try {
    const data: unknown = JSON.parse(text);
    return validate(data) ? data : null;
  } catch {
    return null;
  }
}

export function newAction(fields: Omit<FtsAction, 'id' | 'actionDateTime'>): FtsAction {
  return { id: randomUUID(), actionDateTime: new Date().toISOString(), ...fields };
}

/** New actions first, then the earlier ones; keywords united (docs/behaviour.md#metadata-file). */
export function mergeFtsMetadata(
  existing: FtsMetadata | null,
  actions: FtsAction[],
  keywords: string[] = [],
): FtsMetadata {
  const merged: FtsMetadata = {
    allKeywords: [...new Set([...(existing?.allKeywords ?? []), ...keywords])],
    actions: [...actions, ...(existing?.actions ?? [])],
  };
  if (existing?.extra_metadata) merged.extra_metadata = existing.extra_metadata;
  return merged;
}
