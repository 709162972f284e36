/**
 * Resource ids at Zenodo. A deposition has its record id (digits: 8 and more today, fewer on older records
 * and on other InvenioRDM services); a file has `<deposition id>:<file id>`, where the file id is Zenodo's own
 * (a UUID). The shape alone tells the two apart, and neither can hold a dot, a slash or a percent sign.
 */

export type ParsedId =
  { kind: 'deposition'; deposition: string } | { kind: 'file'; deposition: string; file: string };

/** Record ids are integers; 19 digits is the most a 64-bit one has. */
const DEPOSITION_ID = /^[1-9][0-9]{0,18}$/;
/** Zenodo's file ids are UUIDs; letters, digits and `-` cover them without pinning the format. */
const FILE_ID = /^[A-Za-z0-9-]{1,64}$/;

/** What an id names, or null when no Zenodo resource can have it. */
export function parseId(id: string): ParsedId | null {
  const parts = id.split(':');
  if (!DEPOSITION_ID.test(parts[0])) return null;
  if (parts.length === 1) return { kind: 'deposition', deposition: parts[0] };
  if (parts.length !== 2 || !FILE_ID.test(parts[1])) return null;
  return { kind: 'file', deposition: parts[0], file: parts[1] };
}

export function fileResourceId(depositionId: number | string, fileId: string): string {
  return `${depositionId}:${fileId}`;
}
