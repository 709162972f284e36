/**
 * Fetching a file over HTTP as a user does (curl), timed, with the CPU the serving process spent on it: the
 * API's finished download zip beside a bare Node server answering the same file.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cpuSeconds } from './bench-stack';

const ROOT = join(__dirname, '..');

export interface Fetched {
  seconds: number;
  /** CPU seconds the serving process (all its threads) spent while it answered */
  serverCpuSeconds: number;
}

/** Times `curl` saving `url` to `output` (`/dev/null` to time the serving alone); fails on any error status. */
export async function curlTimed(
  url: string,
  headers: Record<string, string>,
  output: string,
  serverPid: number,
): Promise<Fetched> {
  const args = ['--fail', '--silent', '--show-error', '--output', output, url];
  for (const [name, value] of Object.entries(headers)) args.push('--header', `${name}: ${value}`);
  const cpuBefore = cpuSeconds(serverPid);
  const started = performance.now();
  await promisify(execFile)('curl', args);
  return {
    seconds: (performance.now() - started) / 1000,
    serverCpuSeconds: cpuSeconds(serverPid) - cpuBefore,
  };
}

export interface BareServer {
  /** the file's URL with the stream's read size `chunkBytes` */
  url(chunkBytes: number): string;
  pid: number;
  stop(): void;
}

/** Starts bench/bare-file-server.ts answering `file`, in a process of its own. */
export async function startBareServer(file: string): Promise<BareServer> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'bare-file-server.ts'), file],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(server.stdout, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  return {
    url: (chunkBytes) => `http://127.0.0.1:${port}/?chunk=${chunkBytes}`,
    pid: server.pid!,
    stop: () => server.kill('SIGTERM'),
  };
}

/** A way of fetching the same file, run `rounds` times in turn with the others. */
export interface FetchWay {
  what: string;
  fetch(): Promise<Fetched>;
}

/**
 * Runs each way once per round, alternating so that the machine's ups and downs fall on all of them; each
 * round starts with the next way, so that no way always goes first.
 */
export async function alternate(ways: FetchWay[], rounds: number): Promise<Map<string, Fetched[]>> {
  const runs = new Map(ways.map((way) => [way.what, [] as Fetched[]]));
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < ways.length; i++) {
      const way = ways[(round + i) % ways.length];
      runs.get(way.what)!.push(await way.fetch());
    }
  return runs;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
