import { pathLimitProblem, type PathLimits } from '@app/archive';
import { ServiceError } from '@app/common';
import type { ConnectorSession } from '@app/connectors';
import type { JobContext } from './job-context';

/** How many files too large for the destination a refusal lists. */
const LISTED = 5;

/** What a transfer's destination can hold: files of a size, paths of a depth and length. */
export interface DestinationRules {
  fileSizeProblem: (size: number) => string | null;
  pathLimits: PathLimits;
}

/**
 * Walks a resource once to learn how many files and bytes it holds, so progress can be reported by bytes,
 * and how many folders (the resource itself among them; a target without folders stores a resource with
 * folders as one zip). Only the sums are kept, never the listing. With the `destination`'s rules (a
 * transfer), a resource holding files the destination cannot take, or a path deeper or longer than it may
 * write, is refused here with 400, before anything is written.
 */
export async function countFiles(
  session: ConnectorSession,
  id: string,
  title: string,
  context: JobContext,
  workDir: string,
  destination?: DestinationRules,
): Promise<{ folders: number }> {
  context.setMessage(`Counting the files of ${title}...`);
  let files = 0;
  let bytes = 0;
  let folders = 0;
  const tooLarge: string[] = [];
  for await (const entry of session.walk(id, { workDir })) {
    context.throwIfCancelled();
    const pathProblem = destination && pathLimitProblem(entry.path, destination.pathLimits);
    if (pathProblem)
      throw ServiceError.badRequest(
        `PresQT Error: the resource holds a path the destination cannot hold: ${pathProblem}.`,
      );
    if (entry.kind === 'file') {
      files += 1;
      bytes += entry.size;
      const problem = destination?.fileSizeProblem(entry.size);
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
