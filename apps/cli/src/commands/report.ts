import type { FixityResult, WriteResult } from '@app/job-kinds';

/** Lines on the files whose checksums disagreed, or could not be compared. */
export function reportFixity(result: Partial<FixityResult>): string[] {
  const failed = result.failed_fixity ?? [];
  const unverified = result.fixity_unverified ?? [];
  return [
    ...(failed.length > 0
      ? [`${failed.length} file(s) FAILED their fixity check:`, ...failed.map((path) => `  ${path}`)]
      : []),
    ...(unverified.length > 0
      ? [`${unverified.length} file(s) had no checksum at the source to compare with.`]
      : []),
  ];
}

/** Lines on what an upload or transfer left alone or replaced, and its fixity. */
export function reportWrite(result: Partial<WriteResult>): string[] {
  const ignored = result.resources_ignored ?? [];
  const updated = result.resources_updated ?? [];
  return [
    ...(ignored.length > 0 ? [`${ignored.length} file(s) already there were left as they were.`] : []),
    ...(updated.length > 0 ? [`${updated.length} file(s) already there were updated.`] : []),
    ...reportFixity(result),
  ];
}
