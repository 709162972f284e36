import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { presqtTestRedis?: ChildProcess; presqtTestRunDir?: string };
  run.presqtTestRedis?.kill('SIGTERM');
  if (run.presqtTestRunDir) rmSync(run.presqtTestRunDir, { recursive: true, force: true });
}
