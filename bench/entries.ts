/**
 * Memory against the number of entries: uploads a bag of N tiny files, downloads the project it made and
 * transfers it, and prints the API's peak resident memory while it receives and inspects the bag, the
 * worker's peak during each job, and the worker's resident memory 10 s after the last one. The worker's idle
 * level is printed twice: fresh, and 10 s after the same three jobs on one file (which start what a worker
 * keeps once it has run jobs, such as its hashing threads). `ENTRIES=20000,99000 npm run bench:entries` (a bag holds at most `MAX_ZIP_ENTRIES`, 100,000
 * by default, tag files included).
 */
import { mkdirSync, mkdtempSync, openAsBlob, rmSync, statSync, writeFileSync } from 'node:fs';
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
  workerFresh: number;
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

const TOKEN_HEADERS = { 'presqt-source-token': TOKEN };
const settle = () => new Promise((resolve) => setTimeout(resolve, 10_000));

/** Uploads the bag in `bagFile` as a new project, and waits for the job to finish. */
async function upload(stack: BenchStack, bagFile: string): ReturnType<typeof runJob> {
  const form = new FormData();
  form.append('presqt-file', await openAsBlob(bagFile), 'bag.zip');
  return runJob(
    stack.base,
    {
      path: '/api_v1/targets/store/resources/',
      method: 'POST',
      headers: {
        'presqt-destination-token': TOKEN,
        'presqt-file-duplicate-action': 'ignore',
        'presqt-email-opt-in': '',
      },
      body: form,
    },
    { path: '/api_v1/job_status/upload/', headers: { 'presqt-destination-token': TOKEN } },
    stack.worker,
  );
}

/** Uploads the bag in `bagFile`, downloads the project it made and transfers it; each job's figures. */
async function runJobs(stack: BenchStack, bagFile: string) {
  const uploaded = await upload(stack, bagFile);
  const id = String(uploaded.result.destination_resource_id);
  const download = await runJob(
    stack.base,
    {
      path: `/api_v1/targets/store/resources/${id}.zip/`,
      method: 'GET',
      headers: { ...TOKEN_HEADERS, 'presqt-email-opt-in': '' },
    },
    { path: '/api_v1/job_status/download.json/', headers: TOKEN_HEADERS },
    stack.worker,
  );
  const transfer = await runTransfer(stack.base, stack.worker, 'store', 'store', id, [TOKEN, TOKEN]);
  return { uploaded, download, transfer };
}

async function measure(stack: BenchStack, work: string, entries: number): Promise<Figures> {
  const bagFile = join(work, `bag-${entries}.zip`);
  const warmUpFile = join(work, 'warm-up.zip');
  await writeTextBag(bagFile, PROJECT, entries);
  await writeTextBag(warmUpFile, 'Warm-up', 1);
  const figures = { entries, bagMiB: Math.round(statSync(bagFile).size / 2 ** 20) } as Figures;
  figures.workerFresh = rssMiB(stack.worker.pid!);
  await runJobs(stack, warmUpFile);
  await settle();
  figures.apiIdle = rssMiB(stack.api.pid!);
  figures.workerIdle = rssMiB(stack.worker.pid!);
  let jobs: Awaited<ReturnType<typeof runJobs>> | undefined;
  // over the three jobs; the API's own work is in the upload (it receives and checks the bag)
  figures.apiPeak = await peakDuring(stack.api.pid!, async () => (jobs = await runJobs(stack, bagFile)));
  figures.acceptS = Math.round(jobs!.uploaded.acceptMs / 100) / 10;
  figures.uploadPeak = jobs!.uploaded.peakRssMiB;
  figures.downloadPeak = jobs!.download.peakRssMiB;
  figures.transferPeak = jobs!.transfer.peakRssMiB;
  await settle();
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
  console.log(
    'RSS in MiB; "workerIdle" is 10 s after the jobs on one file, "workerAfter" 10 s after the last job',
  );
  console.table(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
