import { close, closeSync, constants, fstat, fstatSync, open, openSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';

/**
 * How a file that must be a regular file is opened for reading: O_NOFOLLOW refuses a symlink (ELOOP), and
 * O_NONBLOCK lets the open of a FIFO return at once instead of waiting for a writer, which would hold a thread
 * (the event loop, a hashing thread or one of libuv's) for good. Reads of a regular file ignore O_NONBLOCK.
 * Used where a path was checked before (a walk's lstat) and may have been replaced since.
 */
const REGULAR_FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const [openAsync, fstatAsync] = [promisify(open), promisify(fstat)];
/** Closes a descriptor (one from openRegularFile). */
export const closeFd = promisify(close);

/** The error for a path that is no longer a regular file (a FIFO, a device, a folder swapped in). */
function notRegularFile(): NodeJS.ErrnoException {
  return Object.assign(new Error('The file was replaced by something that is not a regular file.'), {
    code: 'EINVAL',
  });
}

/** A regular file opened for reading: its plain descriptor, and the stats that showed it regular. */
export interface OpenedRegularFile {
  fd: number;
  stats: Stats;
}

/** The regular file at `path`, opened for reading (REGULAR_FILE_FLAGS). */
export async function openRegularFile(path: string): Promise<OpenedRegularFile> {
  const fd = await openAsync(path, REGULAR_FILE_FLAGS);
  try {
    const stats = await fstatAsync(fd);
    if (!stats.isFile()) throw notRegularFile();
    return { fd, stats };
  } catch (error) {
    await closeFd(fd);
    throw error;
  }
}

/** openRegularFile with synchronous calls, for a file read at once (a few microseconds on a local disk). */
export function openRegularFileSync(path: string): OpenedRegularFile {
  const fd = openSync(path, REGULAR_FILE_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRegularFile();
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
