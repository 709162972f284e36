/**
 * Names of files and folders in a download. CurateND keeps a file's name as the depositor gave it (`label`)
 * and lets a work hold two files of one name, so names are made safe as one path segment and unique within
 * their work, as `name (2).ext`.
 */

export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `name` as one path segment: separators and control characters replaced; `fallback` when nothing is left. */
export function safeName(name: string, fallback: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = name.replace(/[/\\\u0000-\u001f]/g, '_').trim();
  return safe === '' || safe === '.' || safe === '..' ? fallback : safe;
}

/** `name`, or `stem (n).ext` with the first n from 2 that `taken` lacks; the result is added to `taken`. */
export function uniqueName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${stem} (${n})${extension}`;
  taken.add(unique);
  return unique;
}
