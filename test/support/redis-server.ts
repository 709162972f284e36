import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

/**
 * A throwaway redis-server (Debian's) on a free loopback port (or `port`, to restart one), with persistence
 * off; `settings` are more command-line settings (`--maxmemory-policy`, `allkeys-lru`...).
 */
export async function startRedis(
  port?: number,
  settings: string[] = [],
): Promise<{ url: string; process: ChildProcess }> {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('redis-server is not installed: run `apt-get install -y redis-server` (see README).');
  }
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'presqt-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...settings,
    ],
    { stdio: 'ignore', detached: false },
  );
  await waitForPort(port, 10_000);
  return { url: `redis://127.0.0.1:${port}`, process: child };
}

export function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on port ${port} after ${timeoutMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}
