/**
 * Listing throughput: `GET /api_v1/targets/{t}/resources/` of the real API (built, with Redis and the worker,
 * as `npm run up` runs them) beside a bare NestJS endpoint answering the same JSON, at the same connections,
 * in alternating runs, with autocannon.
 *
 *   npm run build && npm run bench:listing
 *   LISTING_SECONDS=10 LISTING_CONNECTIONS=50 LISTING_ROUNDS=2 LISTING_PROJECTS=20 (the defaults)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { benchTarget, cpuSeconds, freePort, startBenchStack, waitFor } from '../bench-stack';

const SECONDS = Number(process.env.LISTING_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.LISTING_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.LISTING_ROUNDS ?? 2);
const PROJECTS = Number(process.env.LISTING_PROJECTS ?? 20);
const ROOT = join(__dirname, '..', '..');
const TOKEN = 'bench-token';
const PATH = '/api_v1/targets/bench/resources/';

interface Measure {
  what: string;
  requestsPerSecond: number;
  p99Ms: number;
  /** the answering process's CPU time (all its threads) over the requests it answered */
  cpuMicrosPerRequest: number;
  errors: number;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'presqt-listing-'));
  const stops: (() => void)[] = [];
  try {
    const root = join(work, 'root');
    for (let i = 0; i < PROJECTS; i++)
      mkdirSync(join(root, 'bench', `Project ${i}`, 'data'), { recursive: true });
    const targetsFile = join(work, 'targets.json');
    writeFileSync(targetsFile, JSON.stringify([listingTarget(root)]));
    const stack = await startBenchStack(work, targetsFile);
    stops.push(() => stack.stop());
    const ours = `${stack.base}${PATH}`;
    const answer = await fetch(ours, { headers: { 'presqt-source-token': TOKEN } });
    if (answer.status !== 200) throw new Error(`the listing answered ${answer.status}`);
    const bodyFile = join(work, 'body.json');
    writeFileSync(bodyFile, await answer.text());
    const bare = await startBareApp(bodyFile, stops);

    const measures: Measure[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      measures.push(await measure('PresQT listing', ours, stack.api.pid!));
      measures.push(await measure('bare NestJS, same JSON', `${bare.base}${PATH}`, bare.pid));
    }
    printTable(measures);
  } finally {
    for (const stop of stops) stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function listingTarget(root: string) {
  const none = { transfer_in: [], transfer_out: [] };
  return benchTarget('bench', 'filesystem', { root, tokens: { [TOKEN]: 'bench' } }, none);
}

/**
 * Starts the bare app as `npm run start:api` starts the API (scripts/start-app.sh: its node options, BENCH_NODE_ARGS
 * included, and its allocator), so that the two differ only in their code; answers its base URL and process id.
 */
async function startBareApp(bodyFile: string, stops: (() => void)[]): Promise<{ base: string; pid: number }> {
  const port = await freePort();
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn('sh', [join(ROOT, 'scripts/start-app.sh'), 'api', '--import', 'tsx', ...nodeArgs], {
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '',
      PRESQT_APP_MAIN: join(__dirname, 'bare-app.ts'),
      BARE_PORT: String(port),
      BARE_BODY_FILE: bodyFile,
      ...(process.env.PRESQT_NO_JEMALLOC ? { PRESQT_NO_JEMALLOC: process.env.PRESQT_NO_JEMALLOC } : {}),
    },
  });
  stops.push(() => child.kill('SIGTERM'));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}${PATH}`).catch(() => null))?.ok === true);
  return { base, pid: child.pid! };
}

/**
 * Runs autocannon against `url`, with the CPU time of the answering process `pid`: on the shared 2-core
 * machine requests a second follow the other sessions' load, CPU per request much less.
 */
async function measure(what: string, url: string, pid: number): Promise<Measure> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'presqt-source-token': TOKEN },
  });
  return {
    what,
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1e6) / result.requests.total,
    errors: result.errors + result.non2xx,
  };
}

function printTable(measures: Measure[]): void {
  console.log(`\n${PROJECTS} projects, ${CONNECTIONS} connections, ${SECONDS} s a run, alternating:\n`);
  console.log('| what | requests/s | p99 ms | CPU µs a request | errors |');
  console.log('|---|---|---|---|---|');
  for (const m of measures) {
    const cpu = m.cpuMicrosPerRequest.toFixed(0);
    console.log(`| ${m.what} | ${m.requestsPerSecond.toFixed(0)} | ${m.p99Ms} | ${cpu} | ${m.errors} |`);
  }
  const average = (what: string, of: (m: Measure) => number) => {
    const runs = measures.filter((m) => m.what === what);
    return runs.reduce((sum, m) => sum + of(m), 0) / runs.length;
  };
  const ratio = (of: (m: Measure) => number) =>
    average('PresQT listing', of) / average('bare NestJS, same JSON', of);
  console.log(`\nPresQT listing / bare NestJS: ${ratio((m) => m.requestsPerSecond).toFixed(2)}`);
  console.log(
    `CPU a request, bare NestJS / PresQT listing: ${(1 / ratio((m) => m.cpuMicrosPerRequest)).toFixed(2)}`,
  );
}

void main();
