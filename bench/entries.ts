/**
 * Memory against the number of entries: uploads a bag of N tiny files, downloads the project it made and
 * transfers it, and prints the API's peak resident memory while it receives and inspects the bag, the
 * worker's peak during each job, and the worker's resident memory 10 s after the last one (its idle level
 * is printed too). `ENTRIES=20000,99000 npm run bench:entries` (a bag holds at most `MAX_ZIP_ENTRIES`, 100,000
 * by default, tag files included).
 */
import { mkdirSync, mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchTarget, rssMiB, runJob, runTransfer, startBenchStack, type BenchStack } from './bench-stack';
import { writeTextBag } from './text-bag';

const TOKEN = 'bench-token';
const PROJECT = 'Entries';

interface Figures {
  entries: number;
  bagMiB: number;
  apiIdle: number;
  apiPeak: number;
  acceptS: number;
  workerIdle: number;
  uploadPeak: number;
  downloadPeak: number;
  transferPeak: number;
  workerAfter: number;
}

/** Samples a process's resident memory every 50 ms while `work` runs; the peak, in MiB. */
async function peakDuring(pid: number, work: () => Promise<unknown>): Promise<number> {
  let peak = rssMiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  try {
    await work();
    return Math.max(peak, rssMiB(pid));
  } finally {
    clearInterval(timer);
  }
}

async function measure(stack: BenchStack, work: string, entries: number): Promise<Figures> {
  const bagFile = join(work, `bag-${entries}.zip`);
  await writeTextBag(bagFile, PROJECT, entries);
  const bag = await openAsBlob(bagFile);
  const figures = { entries, bagMiB: Math.round(bag.size / 2 ** 20) } as Figures;
  figures.apiIdle = rssMiB(stack.api.pid!);
  figures.workerIdle = rssMiB(stack.worker.pid!);
  const token = { 'presqt-source-token': TOKEN };
  const status = { path: '/api_v1/job_status/upload/', headers: { 'presqt-destination-token': TOKEN } };
  const form = new FormData();
  form.append('presqt-file', bag, 'bag.zip');
  let upload: Awaited<ReturnType<typeof runJob>> | undefined;
  figures.apiPeak = await peakDuring(stack.api.pid!, async () => {
    upload = await runJob(
      stack.base,
      { path: '/api_v1/targets/store/resources/', method: 'POST', body: form as unknown as string },
      {
        'presqt-destination-token': TOKEN,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-email-opt-in': '',
      },
      status,
      stack.worker,
    );
  });
  figures.acceptS = Math.round(upload!.acceptMs / 100) / 10;
  figures.uploadPeak = upload!.peakRssMiB;
  const id = String(upload!.result.destination_resource_id);
  const download = await runJob(
    stack.base,
    { path: `/api_v1/targets/store/resources/${id}.zip/`, method: 'GET' },
    { ...token, 'presqt-email-opt-in': '' },
    { path: '/api_v1/job_status/download.json/', headers: token },
    stack.worker,
  );
  figures.downloadPeak = download.peakRssMiB;
  const transfer = await runTransfer(stack.base, stack.worker, 'store', 'store', id, [TOKEN, TOKEN]);
  figures.transferPeak = transfer.peakRssMiB;
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  figures.workerAfter = rssMiB(stack.worker.pid!);
  rmSync(bagFile);
  return figures;
}

async function main(): Promise<void> {
  const counts = (process.env.ENTRIES ?? '20000,99000').split(',').map(Number);
  const rows: Figures[] = [];
  for (const entries of counts) {
    const work = mkdtempSync(join(tmpdir(), 'presqt-bench-entries-'));
    mkdirSync(join(work, 'store'));
    const targetsFile = join(work, 'targets.json');
    const partners = { transfer_in: ['store'], transfer_out: ['store'] };
    writeFileSync(
      targetsFile,
      JSON.stringify([
        benchTarget(
          'store',
          'filesystem',
          { root: join(work, 'store'), tokens: { [TOKEN]: 'bench' } },
          partners,
        ),
      ]),
    );
    const stack = await startBenchStack(work, targetsFile);
    try {
      rows.push(await measure(stack, work, entries));
    } finally {
      stack.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }
  console.log('RSS in MiB; "after" is the worker 10 s after its last job');
  console.table(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
