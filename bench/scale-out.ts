/**
 * Scale-out: the same batch of independent transfers, one per user, into a fake OSF that answers every
 * request 20 ms late (as a repository on the internet would), run by one worker and then by two.
 *
 *   npm run build && npm run bench:scale-out
 *   SCALE_USERS=16 SCALE_FILES=60 SCALE_LATENCY_MS=20 SCALE_WORKERS=1,2 (the defaults)
 */
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OsfFake } from '../test/fakes/osf/osf-fake';
import { benchTarget, runTransfer, startBenchStack } from './bench-stack';

const USERS = Number(process.env.SCALE_USERS ?? 16);
const FILES = Number(process.env.SCALE_FILES ?? 60);
const LATENCY_MS = Number(process.env.SCALE_LATENCY_MS ?? 20);
const WORKER_COUNTS = (process.env.SCALE_WORKERS ?? '1,2').split(',').map(Number);
const PROJECT_ID = Buffer.from('project').toString('base64url');

const userToken = (user: number) => `scale-token-${user}`;

async function main(): Promise<void> {
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'presqt-scale-'));
  const osf = await new OsfFake().start();
  try {
    for (const server of osf.servers) server.latencyMs = LATENCY_MS;
    for (let user = 0; user < USERS; user++) osf.addUser(`User ${user}`, userToken(user));
    const root = join(work, 'source');
    makeProjects(root);
    const targetsFile = join(work, 'targets.json');
    writeFileSync(targetsFile, JSON.stringify([sourceTarget(root), osfTarget(osf)]));

    const seconds = new Map<number, number>();
    for (const workers of WORKER_COUNTS) seconds.set(workers, await runBatch(work, targetsFile, workers));
    printTable(seconds);
  } finally {
    await osf.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Each user's one project of FILES files of 16 KiB. */
function makeProjects(root: string): void {
  const chunk = Buffer.alloc(16 * 1024);
  for (let user = 0; user < USERS; user++) {
    const project = join(root, `user-${user}`, 'project');
    mkdirSync(project, { recursive: true });
    for (let file = 0; file < FILES; file++)
      writeFileSync(join(project, `file-${file}.bin`), randomFillSync(chunk));
  }
}

/** The seconds from starting every user's transfer to the last one finishing, with `workers` workers. */
async function runBatch(work: string, targetsFile: string, workers: number): Promise<number> {
  const stack = await startBenchStack(join(work, `run-${workers}`), targetsFile, workers);
  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: USERS }, (_, user) =>
        runTransfer(stack.base, stack.worker, 'bench_src', 'osf', PROJECT_ID, [
          userToken(user),
          userToken(user),
        ]),
      ),
    );
    return (performance.now() - started) / 1000;
  } finally {
    stack.stop();
  }
}

function sourceTarget(root: string) {
  const tokens = Object.fromEntries(
    Array.from({ length: USERS }, (_, user) => [userToken(user), `user-${user}`]),
  );
  return benchTarget('bench_src', 'filesystem', { root, tokens }, { transfer_in: [], transfer_out: ['osf'] });
}

function osfTarget(osf: OsfFake) {
  const options = { api_url: osf.api.url, files_url: osf.files.origin };
  return benchTarget('osf', 'osf', options, { transfer_in: ['bench_src'], transfer_out: [] });
}

function printTable(seconds: Map<number, number>): void {
  console.log(
    `\n${USERS} users, each transferring ${FILES} files of 16 KiB into a fake OSF answering ${LATENCY_MS} ms late:\n`,
  );
  console.log('| workers | seconds | speed-up |');
  console.log('|---|---|---|');
  const one = seconds.get(WORKER_COUNTS[0])!;
  for (const [workers, time] of seconds) {
    console.log(`| ${workers} | ${time.toFixed(2)} | ${(one / time).toFixed(2)}× |`);
  }
}

void main();
