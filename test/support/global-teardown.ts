import type { ChildProcess } from 'node:child_process';

export default async function globalTeardown(): Promise<void> {
  (globalThis as { presqtTestRedis?: ChildProcess }).presqtTestRedis?.kill('SIGTERM');
}
