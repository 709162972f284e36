import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './stack';

export const CLI = join(ROOT, 'dist', 'apps', 'cli', 'main.js');

export interface CliRun {
  child: ChildProcess;
  /** what it printed so far */
  stdout(): string;
  stderr(): string;
  /** its exit status (or the signal that ended it) and all it printed */
  done: Promise<{ status: number | string; stdout: string; stderr: string }>;
}

/**
 * Runs the built `presqt` as its own process with only `env` (plus PATH and the run's TMPDIR), so that no
 * token or tokens file of the machine running the tests is seen. Its stdin, stdout and stderr are not a
 * terminal, as in a script.
 */
export function runCli(args: string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ status: number | string; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ status: code ?? signal ?? 'unknown', stdout, stderr })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}
