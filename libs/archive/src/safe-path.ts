import { PathLimits } from './archive.settings';

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

/**
 * Why a '/'-separated path would not be written at a target (deeper or longer than `limits`: a filesystem
 * fails such a path with ENAMETOOLONG halfway through a job), or null when it would; the path is named
 * shortened.
 */
export function pathLimitProblem(path: string, limits: PathLimits): string | null {
  const shown = path.length > 60 ? `'${path.slice(0, 60)}…'` : `'${path}'`;
  const depth = path.split('/').length;
  if (depth > limits.maxDepth)
    return `${shown} is ${depth} levels deep, deeper than the ${limits.maxDepth} allowed (${PathLimits.declarations.maxDepth.env})`;
  const bytes = Buffer.byteLength(path);
  if (bytes > limits.maxBytes)
    return `${shown} is ${bytes} bytes long, longer than the ${limits.maxBytes} allowed (${PathLimits.declarations.maxBytes.env})`;
  return null;
}
