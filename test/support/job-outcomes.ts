import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { treeDigests } from './fs-fixtures';
import type { JobRun } from './user-jobs';

const FTS_METADATA_FILE = 'PRESQT_FTS_METADATA.json';
const execFileAsync = promisify(execFile);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const fsPath = (id: string) => Buffer.from(id, 'base64url').toString('utf8');

/** Path → sha256 of every file below `dir`, without the service's metadata file. */
function treeOf(dir: string): Record<string, string> {
  const { [FTS_METADATA_FILE]: _metadata, ...files } = treeDigests(dir);
  return files;
}

/** Whether two trees hold the same paths with the same contents, whatever order they were listed in. */
const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export interface Findings {
  zipsVerified: number;
  zipsBroken: number;
  writesWhole: number;
  /** a finished write that is missing or differs, or a failed one that left something behind */
  writesBroken: string[];
}

/**
 * Checks what the jobs left: every finished zip verifies, every target holds whole writes or nothing. It holds
 * the event loop for one run's files at a time, and the bag verifier runs as a child beside it: a test process
 * blocked for seconds keeps connections to the API in its pool after the API has closed them as idle (5 s),
 * and its next requests fail on them ('other side closed').
 */
export async function verifyRuns(
  runs: JobRun[],
  lab: string,
  archive: string,
  bagVerifier: string,
): Promise<Findings> {
  const findings: Findings = { zipsVerified: 0, zipsBroken: 0, writesWhole: 0, writesBroken: [] };
  for (const run of runs) {
    await nextTurn();
    if (run.kind === 'download' && run.ending === 'finished' && run.zipFile) {
      const bag = `lab_download_${Buffer.from(run.source!, 'utf8').toString('base64url')}`;
      try {
        await execFileAsync('python3', [bagVerifier, run.zipFile, bag]);
        findings.zipsVerified++;
      } catch {
        findings.zipsBroken++;
      }
    }
    if (run.kind === 'download') continue;
    const expected =
      run.kind === 'transfer'
        ? treeOf(join(lab, run.user, run.source!))
        : Object.fromEntries(
            Object.entries(run.uploaded ?? {}).map(([path, bytes]) => [path, sha256(bytes)]),
          );
    if (run.ending === 'finished') {
      const dir = join(archive, run.user, fsPath(run.destinationId ?? ''));
      if (run.destinationId && existsSync(dir) && same(treeOf(dir), expected)) findings.writesWhole++;
      else findings.writesBroken.push(`${run.user} ${run.kind} finished but ${dir} is not whole`);
    } else if (
      run.kind === 'upload' &&
      run.uploadTitle &&
      existsSync(join(archive, run.user, run.uploadTitle))
    ) {
      findings.writesBroken.push(`${run.user} upload ${run.ending} but left ${run.uploadTitle}`);
    }
  }
  for (const user of new Set(runs.map((run) => run.user)))
    findings.writesBroken.push(...orphans(runs, archive, user));
  return findings;
}

/**
 * A write that did not finish left no project: each project at the destination is a finished write. Each one
 * that is not says whether a job's claim still marks it (made by a run that never committed), how many files
 * it holds, and how the runs that could have made it ended.
 */
function orphans(runs: JobRun[], archive: string, user: string): string[] {
  const dir = join(archive, user);
  const held = existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : [];
  const writes = runs.filter((run) => run.user === user && run.kind !== 'download');
  const finished = new Set(
    writes.filter((run) => run.ending === 'finished').map((run) => fsPath(run.destinationId ?? '')),
  );
  return held
    .filter((name) => !finished.has(name))
    .map((name) => {
      const claimed = existsSync(join(dir, name, '.presqt-claim'));
      const files = Object.keys(treeOf(join(dir, name))).length;
      const title = name.replace(/ \(\d+\)$/, '');
      const candidates = writes
        .filter((run) => (run.kind === 'upload' ? run.uploadTitle : run.source) === title)
        .map((run) => `${run.kind} ${run.ending}`);
      return `${user}: ${name} belongs to no finished write (claim ${claimed ? 'still there' : 'gone'}, ${files} files; runs of that title: ${summary(candidates)})`;
    });
}

function summary(items: string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, count]) => `${count} ${item}`).join(', ') || 'none';
}
