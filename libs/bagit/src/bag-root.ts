import { ServiceError } from '@app/common';

/** What macOS's Finder adds to the zips it makes; never part of the bag (docs/behaviour.md#upload-packages). */
function isFinderClutter(path: string): boolean {
  return path === '__MACOSX' || path.startsWith('__MACOSX/') || path === '.DS_Store';
}

/**
 * The folder prefix (e.g. `my_bag/`) of the single top-level directory of an uploaded zip, which must hold
 * the bag and nothing beside it.
 */
export function findBagRoot(entries: readonly { path: string; isDirectory: boolean }[]): string {
  const directories = new Set<string>();
  const files: string[] = [];
  for (const { path, isDirectory } of entries) {
    if (isFinderClutter(path)) continue;
    const slash = path.indexOf('/');
    if (slash >= 0) directories.add(path.slice(0, slash));
    else if (isDirectory) directories.add(path);
    else files.push(path);
  }
  const expected = 'The zip must hold exactly one top-level directory, the bag, and nothing beside it';
  if (files.length > 0)
    throw ServiceError.badRequest(`${expected}, but it has files at its top level: ${sample(files)}.`);
  if (directories.size === 0) throw ServiceError.badRequest(`${expected}, but it has no directory.`);
  if (directories.size > 1)
    throw ServiceError.badRequest(
      `${expected}, but it has ${directories.size} top-level directories: ${sample([...directories].map((name) => `${name}/`))}.`,
    );
  const [root] = directories;
  return `${root}/`;
}

function sample(names: string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
