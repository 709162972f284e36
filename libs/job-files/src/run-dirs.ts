import { opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobFiles, RunToKeep } from './job-files';

/** Where one run of a job keeps its files on this host: `<DATA_DIR>/jobs/<kind>/<ticket>/<run>`. */
export function runDir(dataDir: string, kind: string, ticket: string, runId: string): string {
  return join(dataDir, 'jobs', kind, ticket, runId);
}

/**
 * Removes the run directories of one user's jobs of one kind (`<DATA_DIR>/jobs/<kind>/<ticket>/`) except the
 * run their record names: files live exactly as long as their run's record (docs/behaviour.md#job-files).
 * `keep` may be asked only once the directories are listed: a run's directory appears only after its record
 * names it, so a run started meanwhile is then known and kept.
 */
export async function removeRunsExcept(ticketDir: string, keep: RunToKeep): Promise<void> {
  const runs = await directories(ticketDir);
  const kept = typeof keep === 'function' ? await keep() : keep;
  for (const run of runs) {
    if (run !== kept) await rm(join(ticketDir, run), { recursive: true, force: true });
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

/**
 * Removes one user's other runs of a kind: their directories on this host and, with an object store, their
 * files there (the local store is these directories, so it is swept once).
 */
export async function removeOtherRuns(
  files: JobFiles,
  ticketDir: string,
  run: { kind: string; ticket: string },
  keep: RunToKeep,
): Promise<void> {
  await removeRunsExcept(ticketDir, keep);
  if (!files.inWorkDir) await files.removeRunsExcept(run.kind, run.ticket, keep);
}
