import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { hashFile } from '@app/fixity';
import type { DuplicateAction, IncomingFile, PutFileResult } from '../connector';
import { ConnectorError } from '../connector-error';
import { isReserved } from './paths';

const COMPARE_ALGORITHM = 'sha256';
/** Written files are read back and hashed with these (decision 16). */
const STORED_HASHES = ['md5', 'sha256'] as const;

/** A name that is safe as one path segment in a user's folder; ConnectorError 400 otherwise. */
function checkName(name: string): string {
  const bad =
    name === '' ||
    name === '.' ||
    name === '..' ||
    /[/\\\0]/.test(name) ||
    isReserved(name) ||
    Buffer.byteLength(name) > 255;
  if (bad) throw new ConnectorError(400, `'${name}' cannot be used as a file or folder name.`);
  return name;
}

/** Makes a new directory `title` in `parent`, or `title (2)`, `title (3)`, ... when taken. Returns its name. */
export async function makeUniqueDirectory(parent: string, title: string): Promise<string> {
  checkName(title);
  for (let n = 1; ; n++) {
    const name = n === 1 ? title : `${title} (${n})`;
    try {
      await mkdir(join(parent, name));
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Writes `file` at `segments` below `containerDir`. Folders on the way are created (never through a symlink);
 * the bytes go to a hidden temporary file that is renamed into place only when complete, so nobody ever sees
 * half a file. The result carries hashes read back from the disk.
 */
export async function putFile(
  containerDir: string,
  segments: readonly string[],
  file: IncomingFile,
  duplicate: DuplicateAction,
): Promise<Omit<PutFileResult, 'id' | 'path'>> {
  if (segments.length === 0) throw new ConnectorError(400, 'A file needs a name.');
  segments.forEach(checkName);
  let dir = containerDir;
  for (const segment of segments.slice(0, -1)) {
    dir = join(dir, segment);
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    if (!(await lstat(dir)).isDirectory()) {
      throw new ConnectorError(
        400,
        `'${segments.join('/')}' cannot be written: '${segment}' is not a folder.`,
      );
    }
  }
  const destination = join(dir, segments[segments.length - 1]);
  const existing = await lstat(destination).catch(() => null);
  if (existing && !existing.isFile()) {
    throw new ConnectorError(
      400,
      `'${segments.join('/')}' cannot be written: a folder or link has that name.`,
    );
  }
  if (existing && duplicate === 'ignore')
    return { outcome: 'ignored', hashes: await hashFile(destination, STORED_HASHES) };

  const temporary = join(dir, `.presqt-partial-${randomUUID()}`);
  try {
    await pipeline(await file.open(), createWriteStream(temporary, { flags: 'wx', mode: 0o644 }));
    if (existing) {
      // update replaces only a file whose content differs (decision 19)
      const [before, after] = await Promise.all([
        hashFile(destination, [COMPARE_ALGORITHM]),
        hashFile(temporary, [COMPARE_ALGORITHM]),
      ]);
      if (before[COMPARE_ALGORITHM] === after[COMPARE_ALGORITHM]) {
        await rm(temporary, { force: true });
        return { outcome: 'ignored', hashes: await hashFile(destination, STORED_HASHES) };
      }
    }
    await rename(temporary, destination);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { outcome: existing ? 'updated' : 'created', hashes: await hashFile(destination, STORED_HASHES) };
}
