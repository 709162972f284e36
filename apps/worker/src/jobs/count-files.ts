import type { ConnectorSession } from '@app/connectors';
import type { JobContext } from './job-context';

/**
 * Walks a resource once to learn how many files and bytes it holds, so progress can be reported by bytes,
 * and how many folders (the resource itself among them; a target without folders stores a resource with
 * folders as one zip). Only the sums are kept, never the listing.
 */
export async function countFiles(
  session: ConnectorSession,
  id: string,
  title: string,
  context: JobContext,
  workDir: string,
): Promise<{ folders: number }> {
  context.setMessage(`Counting the files of ${title}...`);
  let files = 0;
  let bytes = 0;
  let folders = 0;
  for await (const entry of session.walk(id, { workDir })) {
    context.throwIfCancelled();
    if (entry.kind === 'file') {
      files += 1;
      bytes += entry.size;
    } else folders += 1;
  }
  context.setTotals(files, bytes);
  return { folders };
}
