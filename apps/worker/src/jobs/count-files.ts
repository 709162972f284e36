import type { ConnectorSession } from '@app/connectors';
import type { JobContext } from './job-context';

/**
 * Walks a resource once to learn how many files and bytes it holds, so progress can be reported by bytes.
 * Only the two sums are kept, never the listing.
 */
export async function countFiles(
  session: ConnectorSession,
  id: string,
  title: string,
  context: JobContext,
): Promise<void> {
  context.setMessage(`Counting the files of ${title}...`);
  let files = 0;
  let bytes = 0;
  for await (const entry of session.walk(id)) {
    context.throwIfCancelled();
    if (entry.kind === 'file') {
      files += 1;
      bytes += entry.size;
    }
  }
  context.setTotals(files, bytes);
}
