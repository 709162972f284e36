import { ServiceError } from '@app/common';
import type { ConnectorSession } from '@app/connectors';
import type { JobContext } from './job-context';

/** How many files too large for the destination a refusal lists. */
const LISTED = 5;

/**
 * Walks a resource once to learn how many files and bytes it holds, so progress can be reported by bytes,
 * and how many folders (the resource itself among them; a target without folders stores a resource with
 * folders as one zip). Only the sums are kept, never the listing. With the destination's
 * `fileSizeProblem` (a transfer), a resource holding files the destination cannot take is refused here,
 * before anything is written.
 */
export async function countFiles(
  session: ConnectorSession,
  id: string,
  title: string,
  context: JobContext,
  workDir: string,
  fileSizeProblem?: (size: number) => string | null,
): Promise<{ folders: number }> {
  context.setMessage(`Counting the files of ${title}...`);
  let files = 0;
  let bytes = 0;
  let folders = 0;
  const tooLarge: string[] = [];
  for await (const entry of session.walk(id, { workDir })) {
    context.throwIfCancelled();
    if (entry.kind === 'file') {
      files += 1;
      bytes += entry.size;
      const problem = fileSizeProblem?.(entry.size);
      if (problem && tooLarge.length < LISTED) tooLarge.push(`'${entry.path}' (${problem})`);
    } else folders += 1;
  }
  if (tooLarge.length > 0)
    throw ServiceError.badRequest(
      `PresQT Error: The destination cannot take these files: ${tooLarge.join('; ')}.`,
    );
  context.setTotals(files, bytes);
  return { folders };
}
