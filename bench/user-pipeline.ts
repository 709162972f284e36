/**
 * What a user runs instead of a download, after `rclone copy` of the resource: bagit-python's bag of the copy
 * (sha256 and sha512 manifests, 2 processes), then `zip -0 -r` of the bag, as the service's zips store their
 * payload uncompressed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { childrenCpuSeconds } from './bench-stack';

/** bagit-python, beside the repository in the shared folder; the pipeline is skipped where it is absent. */
export const BAGIT_PY = join(__dirname, '..', '..', 'shared', 'tools', 'bagit.py');

export interface PipelineStep {
  what: string;
  seconds: number;
  cpuSeconds: number;
}

/** Why the pipeline cannot run here, or null when it can. */
export function pipelineMissing(): string | null {
  if (!existsSync(BAGIT_PY)) return `${BAGIT_PY} is absent`;
  for (const tool of ['python3', 'zip']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (apt-get install -y ${tool})`;
    }
  }
  return null;
}

/** Bags the folder `copy` in place and zips it into `zipFile`, each step timed with its CPU. */
export async function bagAndZip(copy: string, zipFile: string): Promise<PipelineStep[]> {
  const step = async (what: string, command: string, args: string[], cwd?: string): Promise<PipelineStep> => {
    const cpuBefore = childrenCpuSeconds();
    const started = performance.now();
    await promisify(execFile)(command, args, { cwd });
    return {
      what,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: childrenCpuSeconds() - cpuBefore,
    };
  };
  // one after the other, as a user runs them
  const bag = await step('bagit.py --sha256 --sha512 --processes 2', 'python3', [
    BAGIT_PY,
    '--quiet',
    '--sha256',
    '--sha512',
    '--processes',
    '2',
    copy,
  ]);
  return [bag, await step('zip -0 -r', 'zip', ['-0', '-r', '-q', zipFile, basename(copy)], dirname(copy))];
}
