import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { killAndWait } from './processes';

export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { presqtTestRedis?: ChildProcess; presqtTestRunDir?: string };
  if (run.presqtTestRedis) await killAndWait(run.presqtTestRedis);
  if (run.presqtTestRunDir) rmSync(run.presqtTestRunDir, { recursive: true, force: true });
}
