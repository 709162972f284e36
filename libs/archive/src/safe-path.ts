/**
 * Why a '/'-separated relative path could not be used as-is under a destination directory, or null when it
 * can. Shared by zip entry names and the paths a bag's manifests list, so both refuse the same things.
 */
export function unsafePathReason(path: string): string | null {
  if (path.includes('\0')) return 'contains a NUL character';
  if (path.includes('\\')) return "contains a backslash (names must use '/' between folders)";
  if (path.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(path)) return 'starts with a drive letter';
  const segments = path.replace(/\/$/, '').split('/');
  if (segments.includes('..')) return "contains a '..' segment, which would reach outside its folder";
  if (segments.some((segment) => segment === '' || segment === '.'))
    return "contains an empty or '.' segment";
  return null;
}
