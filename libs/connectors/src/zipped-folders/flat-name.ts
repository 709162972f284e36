import { ConnectorError } from '../connector-error';
import { checkPathNames, portableNameProblem } from '../name-rules';

/**
 * The one name a file takes in a target without folders (`upstream` keeps files directly in a `holder`, a
 * deposition or an article); ConnectorError 400 for a path into a folder or a name the target cannot hold.
 * The zipped-folders wrapper sends a resource with folders as one zip, so only a caller that bypasses it
 * meets the first error.
 */
export function flatFileName(path: readonly string[], upstream: string, holder: string): string {
  if (path.length > 1)
    throw new ConnectorError(
      400,
      `${upstream} keeps no folders: '${path.join('/')}' cannot be stored, only files directly in ${holder}.`,
    );
  checkPathNames(path, portableNameProblem, upstream);
  return path[0];
}
