/** Readings of values that several remote connectors take from their upstreams' JSON. */

/** ISO 8601 UTC from an upstream's timestamp; the value as given when it cannot be read as a date. */
export function isoDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/**
 * A title as one path segment of a walk: titles at repositories are free text and may hold slashes, names in
 * a walk may not, nor be empty, `.` or `..`.
 */
export function titleSegment(title: string): string {
  const segment = title.replace(/[/\\]/g, '_').trim();
  return segment === '' || segment === '.' || segment === '..' ? '_' : segment;
}

/** Names in code-point order, so that walks and listings come out the same on every run. */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
