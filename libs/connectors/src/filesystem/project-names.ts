import { statSync, type Stats } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { forEachEntry, forEachInTurns } from './disk';

/**
 * How long before it was read a user's folder must have last changed for its names to be kept. A filesystem
 * records times at a granularity (the kernel's clock tick, 1 to 10 ms; a second or two on some: ext3, FAT,
 * NFS servers whose own filesystem is so): a change in the same tick as the change a stat showed leaves
 * the folder's times as they were, so names read in between would look current when they are not. A folder
 * changed more recently than this is read again at every listing.
 */
export const SETTLED_MS = 2000;
/** What the cache holds at most, in names of all users' folders (about 50 bytes each). */
const MAX_CACHED_NAMES = 100_000;
/** A folder with more projects is not kept, so that a few huge folders cannot push out everyone else's. */
const MAX_NAMES_PER_FOLDER = 10_000;

/** A stat of a folder, with the time just before it was taken. */
export interface FolderStat {
  stats: Stats;
  takenAt: number;
}

/** A stat of `dir`, its time taken first. */
export function statFolder(dir: string): FolderStat {
  const takenAt = Date.now();
  return { stats: statSync(dir), takenAt };
}

/**
 * `first` for the first call, a new stat of `dir` for each later one: the stat that opened a session serves
 * the listing that follows it in the same request, and a session that lists again sees the folder as it is.
 */
export function statOnceThenFresh(dir: string, first: FolderStat): () => FolderStat {
  let unused: FolderStat | undefined = first;
  return () => {
    const stat = unused ?? statFolder(dir);
    unused = undefined;
    return stat;
  };
}

/** What a stat of a folder shows that an entry added, removed or renamed in it always changes. */
interface FolderStamp {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

interface KeptNames {
  stamp: FolderStamp;
  names: readonly string[];
}

function stampOf(stats: Stats): FolderStamp {
  return { dev: stats.dev, ino: stats.ino, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

function sameStamp(a: FolderStamp, b: FolderStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/**
 * The names of the folders in each user's folder (the projects, reserved names left out), kept from one
 * listing to the next while a stat of the user's folder shows it unchanged: its device, inode, mtime and
 * ctime are what adding, removing or renaming an entry changes (through our API or on disk), and the
 * ctime cannot be set back. A listing still takes each project's own stat (its date modified, and that
 * it is still a folder), so only the reading of the user's folder is saved. Least recently used folders
 * go first beyond MAX_CACHED_NAMES names.
 */
export class ProjectNames {
  private readonly folders: LRUCache<string, KeptNames>;

  constructor(
    private readonly limits = { maxNames: MAX_CACHED_NAMES, maxNamesPerFolder: MAX_NAMES_PER_FOLDER },
  ) {
    this.folders = new LRUCache({
      maxSize: limits.maxNames,
      sizeCalculation: (kept) => Math.max(1, kept.names.length),
    });
  }

  /**
   * Hands `handle` the name of each folder in `userDir`, `ENTRIES_PER_TURN` at a time (see forEachInTurns):
   * the names kept when the folder is unchanged since they were read, else those read from it now. `stat`
   * is of `userDir`, taken before this call: names kept are then never older than the stamp they are kept with.
   */
  async forEach(
    userDir: string,
    stat: FolderStat,
    handle: (name: string) => Promise<void> | void,
  ): Promise<void> {
    const stamp = stampOf(stat.stats);
    const kept = this.folders.get(userDir);
    if (kept && sameStamp(kept.stamp, stamp)) return forEachInTurns(kept.names, handle);
    // null once the folder has more names than are kept
    const read: { names: string[] | null } = { names: [] };
    await forEachEntry(userDir, (entry) => {
      if (!entry.isDirectory()) return;
      if (read.names && read.names.length < this.limits.maxNamesPerFolder) read.names.push(entry.name);
      else read.names = null;
      return handle(entry.name);
    });
    const settled = stat.takenAt - Math.max(stamp.mtimeMs, stamp.ctimeMs) >= SETTLED_MS;
    if (read.names && settled) this.folders.set(userDir, { stamp, names: read.names });
    else this.folders.delete(userDir);
  }
}
