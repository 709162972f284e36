import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { directories } from './run-dirs';

/** Where an API process receives upload packages (one folder each) before they go to the job-file store. */
export function incomingUploadsDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

/**
 * Removes the packages an API process was receiving when it died: those older than `maxAgeMs` (no upload
 * takes that long). Any process with the data directory may do it: the API host's own, or workers sharing it.
 */
export async function removeAbandonedUploads(dataDir: string, maxAgeMs: number): Promise<void> {
  const uploads = incomingUploadsDir(dataDir);
  const oldest = Date.now() - maxAgeMs;
  for (const name of await directories(uploads)) {
    const modified = await stat(join(uploads, name)).then(
      (stats) => stats.mtimeMs,
      () => Infinity,
    );
    if (modified < oldest) await rm(join(uploads, name), { recursive: true, force: true });
  }
}
