import type { DigestCache } from './digest-cache';
import type { FolderStat, ProjectNames } from './project-names';

/** What one user's session of the filesystem keeps, which each of its operations is given first. */
export interface FilesystemSession {
  username: string;
  /** realpath of `<root>/<username>` */
  userDir: string;
  /** a stat of `userDir`: the one opening the session took for its first call, then a new one each call */
  userDirStat: () => FolderStat;
  perPage: number;
  /** the target's cache of file checksums, shared by its sessions */
  digests: DigestCache;
  /** the target's cache of the names in its users' folders, shared by its sessions */
  projectNames: ProjectNames;
}
