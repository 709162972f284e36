import { opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes the run directories of one user's jobs of one kind (`<DATA_DIR>/jobs/<kind>/<ticket>/`) except the
 * run their record names: files live exactly as long as their run's record (docs/behaviour.md#job-files).
 */
export async function removeRunsExcept(ticketDir: string, keep: string | undefined): Promise<void> {
  for (const run of await directories(ticketDir)) {
    if (run !== keep) await rm(join(ticketDir, run), { recursive: true, force: true });
  }
}

/** The names of the directories in `dir`; none when it does not exist. */
export async function directories(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(dir)) if (entry.isDirectory()) names.push(entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return names;
}
