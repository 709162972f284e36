import { ConnectorError } from './connector-error';

/**
 * Why a target refuses a file or folder name (one path segment), or null when it takes it. Every connector
 * states its rule as `Connector.nameProblem`, so that an upload is checked before its 202, and its writer
 * applies the same rule.
 */
export type NameRule = (name: string) => string | null;

/** What no target holds as one name: nothing, `.`, `..`, a `/` or a NUL. */
export function pathSegmentProblem(name: string): string | null {
  if (name === '' || name === '.' || name === '..') return 'it is not a name';
  if (/[/\0]/.test(name)) return 'it holds a / or a NUL';
  return null;
}

/** Names that travel between systems: no backslash (a separator elsewhere) and not blank. */
export function portableNameProblem(name: string): string | null {
  if (name.includes('\\')) return 'it holds a backslash';
  if (name.trim() === '') return 'it is blank';
  return pathSegmentProblem(name);
}

/** A git tree entry's name: also not `.git`, where git keeps its own data. */
export function gitNameProblem(name: string): string | null {
  return name.toLowerCase() === '.git' ? 'git keeps its own data under that name' : pathSegmentProblem(name);
}

/** ConnectorError 400 naming the first name of `path` that `rule` refuses. */
export function checkPathNames(path: readonly string[], rule: NameRule, upstream: string): void {
  if (path.length === 0) throw new ConnectorError(400, 'A file needs a name.');
  for (const name of path) {
    const problem = rule(name);
    if (problem)
      throw new ConnectorError(
        400,
        `'${name}' cannot be used as a file or folder name on ${upstream}: ${problem}.`,
      );
  }
}
