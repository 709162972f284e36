/**
 * What a user waits for, from the real API and worker, beside what the user would run instead, in one run on
 * the same disk; each goal's ratio is printed at the end (docs/benchmarks.md).
 *
 *   npm run bench            (needs a build, redis-server, rclone, curl, and for the pipeline python3, zip and
 *                             ../shared/tools/bagit.py: apt-get install -y redis-server rclone curl zip)
 *   BENCH_MIB=256 npm run bench   (a smaller data set, for a quick look; HASH_THREADS and FILE_TRANSFERS
 *                                  pass through to the worker)
 *   BENCH_DATA=many npm run bench (only the many-files set, or `one`)
 *
 * Data: "many" = BENCH_MIB files of 1 MiB; "one" = one file of BENCH_MIB MiB; random bytes (incompressible).
 * For each, in turn:
 * - `cp -r` and `rclone copy` of it; then the pipeline a user runs instead of a download: bagit-python's bag
 *   of the rclone copy (sha256, sha512, 2 processes) and `zip -0 -r` of it (skipped without bagit.py);
 * - a download through the API: from the start request until `curl` has saved the finished zip to disk; then
 *   the finished zip fetched by `curl` from the API and from a bare Node server of the same file, in turn,
 *   BENCH_SERVE_ROUNDS times (5), with each server's CPU;
 * - an upload of the downloaded bag, and a transfer between two filesystem targets.
 *
 * Remote targets (BENCH_REMOTE=0 leaves them out, BENCH_REMOTES=zenodo,osf picks some): the connectors
 * against the test suite's fake upstreams on this machine, each answering 20 ms late (BENCH_LATENCY_MS) as a
 * repository on the internet would, with a transfer from the filesystem into each and back of "thousand" =
 * 1,000 files of 64 KiB in 10 folders, and for Zenodo (which keeps such a tree as one zip) also of "one".
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { open } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  benchTarget,
  childrenCpuSeconds,
  runJob,
  runTransfer,
  startBenchStack,
  watchJob,
  type BenchStack,
  type JobRun,
} from './bench-stack';
import { startRemoteTargets, type BenchRemote } from './remote-targets';
import { alternate, curlTimed, median, startBareServer, type Fetched } from './serving';
import { writeTextBag } from './text-bag';
import { bagAndZip, pipelineMissing, type PipelineStep } from './user-pipeline';

const MIB = 1 << 20;
const GIB = 1 << 30;
const SIZE_MIB = Number(process.env.BENCH_MIB ?? 1024);
const TOKEN = 'bench-token';
/** BENCH_DATA=many (or one) runs only that data set */
const DATA_SETS = process.env.BENCH_DATA ? [process.env.BENCH_DATA] : ['many', 'one'];
const REMOTE = process.env.BENCH_REMOTE !== '0';
/** BENCH_REMOTES=zenodo,osf runs only those remote targets */
const REMOTE_NAMES = process.env.BENCH_REMOTES?.split(',');
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const SERVE_ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 5);
/** the remote data sets: "thousand" for every remote target, "one" too for Zenodo */
const REMOTE_DATA: Record<string, string[]> = {
  github: ['thousand'],
  gitlab: ['thousand'],
  osf: ['thousand'],
  zenodo: ['thousand', 'one'],
  figshare: ['thousand'],
};

interface Row {
  what: string;
  data: string;
  seconds: number;
  mbPerSecond: number;
  /** CPU seconds of the copying process: cp or rclone, or the worker for a job */
  cpuSeconds: number;
  note: string;
}

/** What one run measured, for the table and the goals. */
interface Results {
  rows: Row[];
  /** per data set: the user's pipeline after the rclone copy (bagit.py, zip), or why it did not run */
  pipelines: Map<string, PipelineStep[] | string>;
  /** per data set: the download, start request to finished, and then curl saving the zip */
  downloads: Map<string, { job: JobRun; saved: Fetched; zipBytes: number }>;
  /** per data set: each way of fetching the finished zip, its runs */
  serving: Map<string, Map<string, Fetched[]>>;
  accepted: string[];
  uploads: UploadAccept[];
  smallAccepts: number[];
}

/** Bytes of each data set. */
function bytesOf(data: string): number {
  return data === 'thousand' ? 1000 * 64 * 1024 : SIZE_MIB * MIB;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'presqt-bench-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    const sourceRoot = join(work, 'source');
    makeData(join(sourceRoot, 'bench'));
    const results: Results = {
      rows: [],
      pipelines: new Map(),
      downloads: new Map(),
      serving: new Map(),
      accepted: [],
      uploads: [],
      smallAccepts: [],
    };
    const remotes = REMOTE ? await startRemoteTargets(LATENCY_MS, ['bench_src', 'bench_dst']) : [];
    stops.push(...remotes.map((remote) => () => remote.stop()));
    const stack = await startBenchStack(work, writeTargets(work, sourceRoot, remotes));
    stops.push(() => Promise.resolve(stack.stop()));
    const job = (what: string, data: string, run: JobRun) => {
      const note = `worker peak RSS ${run.peakRssMiB} MiB, main thread ${run.workerMainCpuSeconds.toFixed(2)} CPU s`;
      results.rows.push(row(what, data, bytesOf(data), run.seconds, run.workerCpuSeconds, note));
      results.accepted.push(`${what}, ${data}: ${run.acceptMs} ms`);
    };
    // each data set's alternatives just before its jobs: the load of a shared machine drifts over a run
    for (const data of DATA_SETS) {
      await baselines(work, sourceRoot, data, results);
      await localJobs(stack, work, data, job, results);
    }
    results.smallAccepts = await smallUploads(stack, work);
    if (REMOTE) await baselines(work, sourceRoot, 'thousand', results);
    await remoteJobs(stack, work, remotes, job);
    printTable(results);
    printGoals(results);
  } finally {
    await Promise.all(stops.map((stop) => stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * `cp -r` and `rclone copy --checksum` of a data set, on the same disk; then, of a local data set, the rest of
 * the user's pipeline on the rclone copy. The commands run asynchronously: this process's event loop must go
 * on seeing the API close its idle keep-alive connections, or the next job's request would go out on one.
 */
async function baselines(work: string, sourceRoot: string, data: string, results: Results): Promise<void> {
  const from = join(sourceRoot, 'bench', data);
  const copy = async (what: string, command: string, args: string[]) => {
    await settle(from);
    const cpuBefore = childrenCpuSeconds();
    const seconds = await timed(() => run(command, args));
    return row(what, data, bytesOf(data), seconds, childrenCpuSeconds() - cpuBefore);
  };
  const cpCopy = join(work, `cp-${data}`);
  results.rows.push(await copy('cp -r', 'cp', ['-r', from, cpCopy]));
  rmSync(cpCopy, { recursive: true });
  const rcloneCopy = join(work, `rclone-${data}`);
  const rcloneArgs = ['copy', '--transfers', '4', '--checksum', from, rcloneCopy];
  results.rows.push(await copy('rclone copy (--transfers 4, checksums)', 'rclone', rcloneArgs));
  if (data !== 'thousand') {
    const zip = join(work, `pipeline-${data}.zip`);
    results.pipelines.set(data, pipelineMissing() ?? (await bagAndZip(rcloneCopy, zip)));
    rmSync(zip, { force: true });
  }
  rmSync(rcloneCopy, { recursive: true });
}

/** The targets file: the source and destination folders, each a partner of the other and of every remote. */
function writeTargets(work: string, sourceRoot: string, remotes: BenchRemote[]): string {
  const targetsFile = join(work, 'targets.json');
  const remoteNames = remotes.map((remote) => remote.name);
  mkdirSync(join(work, 'destination'), { recursive: true });
  mkdirSync(join(work, 'uploads'), { recursive: true });
  writeFileSync(
    targetsFile,
    JSON.stringify([
      target('bench_src', sourceRoot, ['bench_dst', ...remoteNames]),
      target('bench_dst', join(work, 'destination'), ['bench_src', ...remoteNames]),
      target('bench_up', join(work, 'uploads'), []),
      ...remotes.map((remote) => remote.entry),
    ]),
  );
  return targetsFile;
}

type RecordJob = (what: string, data: string, run: JobRun) => void;

const SOURCE_TOKEN = { 'presqt-source-token': TOKEN };

/**
 * Of one local data set: a download until its zip is saved, the finished zip served by the API and by a bare
 * server, an upload of the downloaded bag (into a folder of its own) and a filesystem-to-filesystem transfer.
 */
async function localJobs(
  stack: BenchStack,
  work: string,
  data: string,
  job: RecordJob,
  results: Results,
): Promise<void> {
  const { base, worker, api } = stack;
  const id = Buffer.from(data).toString('base64url');
  const source = join(work, 'source', 'bench', data);
  await settle(source);
  const download = await runJob(
    base,
    {
      path: `/api_v1/targets/bench_src/resources/${id}.zip/`,
      method: 'GET',
      headers: { ...SOURCE_TOKEN, 'presqt-email-opt-in': '' },
    },
    { path: '/api_v1/job_status/download.json/', headers: SOURCE_TOKEN },
    worker,
  );
  const bag = join(work, `bag-${data}.zip`);
  const saved = await curlTimed(`${base}/api_v1/job_status/download.zip/`, SOURCE_TOKEN, bag, api.pid!);
  job('PresQT download (zip, until finished)', data, download);
  results.downloads.set(data, { job: download, saved, zipBytes: statSync(bag).size });
  results.serving.set(data, await compareServing(stack, work, String(download.result.zip_name)));
  const upload = await uploadBag(base, worker, bag);
  job('PresQT upload (the downloaded bag)', data, upload.run);
  results.uploads.push({ data, ...upload });
  rmSync(bag);
  await settle(source);
  const transfer = await runTransfer(base, worker, 'bench_src', 'bench_dst', id, [TOKEN, TOKEN]);
  job('PresQT transfer (fs to fs)', data, transfer);
}

const API_SERVES = 'PresQT API';
const bareServes = (chunkBytes: number) => `bare Node http + createReadStream, ${chunkBytes >> 10} KiB reads`;
const BARE_CHUNKS = [64 << 10, 1 << 20];

/**
 * The finished zip fetched by curl (to /dev/null: the serving alone) from the API and from a bare Node
 * server of the same file, in turn, SERVE_ROUNDS times each.
 */
async function compareServing(
  { base, api }: BenchStack,
  work: string,
  zipName: string,
): Promise<Map<string, Fetched[]>> {
  const zipFile = findFile(join(work, 'data', 'jobs', 'download'), zipName);
  // the zips just written (the job's, and the copy curl saved) are on disk before any server is timed
  await run('sync');
  const bare = await startBareServer(zipFile);
  try {
    const url = `${base}/api_v1/job_status/download.zip/`;
    return await alternate(
      [
        { what: API_SERVES, fetch: () => curlTimed(url, SOURCE_TOKEN, '/dev/null', api.pid!) },
        ...BARE_CHUNKS.map((chunk) => ({
          what: bareServes(chunk),
          fetch: () => curlTimed(bare.url(chunk), {}, '/dev/null', bare.pid),
        })),
      ],
      SERVE_ROUNDS,
    );
  } finally {
    bare.stop();
  }
}

/** The path of the file named `name` somewhere below `dir`. */
function findFile(dir: string, name: string): string {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name === name) return join(entry.parentPath, entry.name);
  throw new Error(`${name} is not below ${dir}`);
}

interface UploadAccept {
  data: string;
  bagBytes: number;
  /** from the request's last byte leaving this process to the 202 (the API checks the whole bag meanwhile) */
  receivedToAcceptMs: number;
}

const SMALL_UPLOADS = 10;

/** The time to the 202 of each of SMALL_UPLOADS uploads of a bag of one small file, each a new project, one after another. */
async function smallUploads({ base, worker }: BenchStack, work: string): Promise<number[]> {
  const accepts: number[] = [];
  for (let i = 0; i < SMALL_UPLOADS; i++) {
    const bag = join(work, `small-${i}.zip`);
    await writeTextBag(bag, `small-${i}`, 1);
    accepts.push((await uploadBag(base, worker, bag)).run.acceptMs);
    rmSync(bag);
  }
  return accepts;
}

/**
 * Uploads a bag as the web client does (multipart, one `presqt-file` part), timing its 202 from the moment the
 * last byte of the request was handed to the socket, then polls the job to its end.
 */
async function uploadBag(
  base: string,
  worker: ChildProcess,
  bag: string,
): Promise<{ run: JobRun; bagBytes: number; receivedToAcceptMs: number }> {
  const boundary = `presqt-bench-${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="presqt-file"; filename="bag.zip"\r\n` +
      'Content-Type: application/zip\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bagBytes = statSync(bag).size;
  const headers = {
    'presqt-destination-token': TOKEN,
    'presqt-file-duplicate-action': 'ignore',
    'presqt-email-opt-in': '',
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(head.length + bagBytes + tail.length),
  };
  let receivedToAcceptMs = 0;
  const status = { path: '/api_v1/job_status/upload/', headers: { 'presqt-destination-token': TOKEN } };
  const run = await watchJob(base, status, worker, 50, async () => {
    const request = httpRequest(`${base}/api_v1/targets/bench_up/resources/`, { method: 'POST', headers });
    let sentAt = 0;
    request.on('finish', () => (sentAt = performance.now()));
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      request.on('response', resolve);
      request.on('error', reject);
    });
    request.write(head);
    await pipeline(createReadStream(bag), request, { end: false });
    request.end(tail);
    const response = await answered;
    receivedToAcceptMs = performance.now() - sentAt;
    const body = await text(response);
    if (response.statusCode !== 202) throw new Error(`upload: ${response.statusCode} ${body}`);
  });
  return { run, bagBytes, receivedToAcceptMs };
}

/** A transfer into each remote target and back out of it. */
async function remoteJobs(
  { base, worker }: BenchStack,
  work: string,
  remotes: BenchRemote[],
  job: RecordJob,
): Promise<void> {
  const late = `(fake, ${LATENCY_MS} ms)`;
  for (const remote of remotes.filter(({ name }) => !REMOTE_NAMES || REMOTE_NAMES.includes(name))) {
    for (const data of REMOTE_DATA[remote.name]) {
      const id = Buffer.from(data).toString('base64url');
      await settle(join(work, 'source', 'bench', data));
      const there = await runTransfer(base, worker, 'bench_src', remote.name, id, [TOKEN, remote.token]);
      job(`PresQT transfer fs to ${remote.name} ${late}`, data, there);
      const tokens: [string, string] = [remote.token, TOKEN];
      const back = await runTransfer(base, worker, remote.name, 'bench_dst', there.destinationId, tokens);
      job(`PresQT transfer ${remote.name} ${late} to fs`, data, back);
    }
  }
}

function printTable({ rows, accepted, uploads, smallAccepts, pipelines, serving, downloads }: Results): void {
  console.log(
    `\nData: "many" = ${SIZE_MIB} files of 1 MiB, "one" = 1 file of ${SIZE_MIB} MiB, "thousand" = 1,000 files of 64 KiB; ${process.env.BENCH_DIR ?? tmpdir()} on this machine.\n`,
  );
  console.log('| what | data | seconds | MB/s | vs rclone | CPU s | note |');
  console.log('|---|---|---|---|---|---|---|');
  const pipelineRows = [...pipelines].flatMap(([data, steps]) =>
    typeof steps === 'string'
      ? []
      : steps.map((step) => row(`then ${step.what}`, data, bytesOf(data), step.seconds, step.cpuSeconds)),
  );
  const servingRows = [...serving].flatMap(([data, ways]) =>
    [...ways].map(([what, runs]) => {
      const seconds = median(runs.map((run) => run.seconds));
      const cpu = median(runs.map((run) => run.serverCpuSeconds));
      return row(
        `serving the finished zip: ${what}`,
        data,
        downloads.get(data)!.zipBytes,
        seconds,
        cpu,
        `median of ${runs.map((run) => run.seconds.toFixed(2)).join(', ')} s; CPU s of the server`,
      );
    }),
  );
  for (const r of [...rows, ...pipelineRows, ...servingRows]) {
    // a data set copied by no rclone row here (BENCH_DATA=many skips the remotes' "one" file) has no ratio
    const rclone = rows.find((other) => other.what.startsWith('rclone') && other.data === r.data);
    const vsRclone = rclone ? (r.mbPerSecond / rclone.mbPerSecond).toFixed(2) : '–';
    console.log(
      `| ${r.what} | ${r.data} | ${r.seconds.toFixed(2)} | ${r.mbPerSecond.toFixed(0)} | ${vsRclone} | ${r.cpuSeconds.toFixed(1)} | ${r.note} |`,
    );
  }
  console.log(
    `\nCPU s: CPU time of the copying process, all its threads (for a job, the worker's; for serving, the server's), on ${availableParallelism()} cores.`,
  );
  const digests = ['md5', 'sha256', 'sha512'].map(
    (algorithm) => `${algorithm} ${digestSeconds([algorithm]).toFixed(2)}`,
  );
  console.log(
    `CPU s to digest 1 GiB on one core here: ${digests.join(', ')}; all three ${digestSeconds(['md5', 'sha256', 'sha512']).toFixed(2)}.`,
  );
  console.log(`\nTime from the start request to the 202: ${accepted.join('; ')}`);
  for (const { data, bagBytes, receivedToAcceptMs } of uploads) {
    const mibPerSecond = bagBytes / MIB / (receivedToAcceptMs / 1000);
    console.log(
      `Upload of the ${data} bag (${(bagBytes / MIB).toFixed(0)} MiB): ${receivedToAcceptMs.toFixed(0)} ms from its last byte to the 202 (${mibPerSecond.toFixed(0)} MiB/s checked).`,
    );
  }
  const sorted = [...smallAccepts].sort((a, b) => a - b);
  console.log(
    `Small uploads (a bag of one small file, ${sorted.length} in turn), start request to 202: median ${sorted[sorted.length >> 1]} ms, slowest ${sorted[sorted.length - 1]} ms.`,
  );
}

/** Each goal of docs/benchmarks.md with this run's figure: a ratio of the user's alternative's time to ours. */
function printGoals(results: Results): void {
  console.log("\nGoals (this run; a ratio is the alternative's time over ours: higher is better):\n");
  console.log('| goal | data | PresQT | instead | ratio | met |');
  console.log('|---|---|---|---|---|---|');
  const goal = (
    what: string,
    data: string,
    ours: string,
    theirs: string,
    ratio: number | null,
    least: number,
  ) =>
    console.log(
      `| ${what} | ${data} | ${ours} | ${theirs} | ${ratio === null ? 'not measured' : `${ratio.toFixed(2)}×`} | ${ratio === null ? '–' : ratio >= least ? 'yes' : 'NO'} |`,
    );
  for (const data of DATA_SETS) {
    const download = downloadGoal(results, data);
    goal(
      'download, start to zip saved, ≥ 1.5× the pipeline',
      data,
      download.ours,
      download.theirs,
      download.ratio,
      1.5,
    );
    const serving = servingGoal(results, data);
    goal(
      'serving a finished zip, ≥ 0.8× a bare Node server',
      data,
      serving.ours,
      serving.theirs,
      serving.ratio,
      0.8,
    );
    const transfer = results.rows.find((r) => r.what.startsWith('PresQT transfer (fs') && r.data === data)!;
    const rclone = results.rows.find((r) => r.what.startsWith('rclone') && r.data === data)!;
    goal(
      'fs → fs transfer, ≥ 0.7× rclone copy',
      data,
      `${transfer.seconds.toFixed(2)} s, ${transfer.cpuSeconds.toFixed(1)} CPU s`,
      `rclone copy ${rclone.seconds.toFixed(2)} s, ${rclone.cpuSeconds.toFixed(1)} CPU s`,
      rclone.seconds / transfer.seconds,
      0.7,
    );
  }
  printOtherGoals(results);
}

/** The transfer's digest floor, the worker's memory and the small uploads' time to the 202. */
function printOtherGoals(results: Results): void {
  const floor = TRANSFER_DIGESTS.map(
    ({ of, algorithms }) => `${of} (${algorithms.join(', ')}) ${digestSeconds(algorithms).toFixed(2)}`,
  );
  const floorSeconds = TRANSFER_DIGESTS.reduce((sum, { algorithms }) => sum + digestSeconds(algorithms), 0);
  console.log(
    `\nThe digests an fs → fs transfer computes, per GiB on one core here: ${floor.join(' + ')} = ${floorSeconds.toFixed(2)} CPU s; rclone's md5 of both sides ${(2 * digestSeconds(['md5'])).toFixed(2)}.`,
  );
  const peaks = results.rows
    .filter((r) => r.note.startsWith('worker peak RSS'))
    .map((r) => Number(/(\d+) MiB/.exec(r.note)![1]));
  const peak = Math.max(...peaks);
  console.log(
    `Worker peak RSS, highest of every job: ${peak} MiB (goal: under 200 MB): ${peak * MIB < 200e6 ? 'met' : 'NOT met'}.`,
  );
  const small = median(results.smallAccepts);
  console.log(
    `Small upload to 202, median: ${small.toFixed(0)} ms (goal: under 50 ms): ${small < 50 ? 'met' : 'NOT met'}.`,
  );
}

/**
 * What an fs → fs transfer hashes (docs/behaviour.md#fixity): the bytes passing, for the checksum the source
 * vouches for and the destination reports, and each file read back by the destination.
 */
const TRANSFER_DIGESTS = [
  { of: 'the bytes passed', algorithms: ['sha256'] },
  { of: 'the file read back', algorithms: ['sha256'] },
];

/** Download until the zip is saved, against rclone copy + bagit.py + zip -0. */
function downloadGoal(
  results: Results,
  data: string,
): { ours: string; theirs: string; ratio: number | null } {
  const { job, saved } = results.downloads.get(data)!;
  const oursSeconds = job.seconds + saved.seconds;
  const ours = `${oursSeconds.toFixed(2)} s (job ${job.seconds.toFixed(2)} + curl ${saved.seconds.toFixed(2)})`;
  const steps = results.pipelines.get(data)!;
  if (typeof steps === 'string') return { ours, theirs: `skipped: ${steps}`, ratio: null };
  const rclone = results.rows.find((r) => r.what.startsWith('rclone') && r.data === data)!;
  const parts = [
    { what: 'rclone', seconds: rclone.seconds },
    ...steps.map((step) => ({ what: step.what.split(' ')[0], seconds: step.seconds })),
  ];
  const theirsSeconds = parts.reduce((sum, part) => sum + part.seconds, 0);
  const theirs = `${theirsSeconds.toFixed(2)} s (${parts.map((part) => `${part.what} ${part.seconds.toFixed(2)}`).join(' + ')})`;
  return { ours, theirs, ratio: theirsSeconds / oursSeconds };
}

/** The API serving the finished zip, against the faster of the bare server's read sizes; medians. */
function servingGoal(results: Results, data: string): { ours: string; theirs: string; ratio: number } {
  const ways = results.serving.get(data)!;
  const gib = results.downloads.get(data)!.zipBytes / GIB;
  const figures = (what: string) => {
    const runs = ways.get(what)!;
    return {
      what,
      seconds: median(runs.map((run) => run.seconds)),
      cpuPerGiB: median(runs.map((run) => run.serverCpuSeconds)) / gib,
    };
  };
  const api = figures(API_SERVES);
  const bare = BARE_CHUNKS.map((chunk) => figures(bareServes(chunk))).sort(
    (a, b) => a.seconds - b.seconds,
  )[0];
  const describe = ({ seconds, cpuPerGiB }: { seconds: number; cpuPerGiB: number }) =>
    `${seconds.toFixed(2)} s, ${cpuPerGiB.toFixed(2)} CPU s/GiB`;
  return {
    ours: describe(api),
    theirs: `${describe(bare)} (${bare.what.split(', ')[1]})`,
    ratio: bare.seconds / api.seconds,
  };
}

function target(name: string, root: string, partners: string[]) {
  const both = { transfer_in: partners, transfer_out: partners };
  return benchTarget(name, 'filesystem', { root, tokens: { [TOKEN]: 'bench' } }, both);
}

/**
 * Before a timed row: the disk has caught up with what earlier rows wrote (sync), and the data set is in the
 * page cache, so that every row starts from the same state whatever ran before it (the jobs run after
 * gigabytes of copies and zips that could have pushed the data set out of the cache, the baselines before).
 */
async function settle(dataDir: string): Promise<void> {
  await run('sync');
  const buffer = Buffer.allocUnsafe(MIB);
  for (const entry of readdirSync(dataDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    // asynchronous reads, as the commands: the event loop keeps its turns
    const file = await open(join(entry.parentPath, entry.name), 'r');
    while ((await file.read(buffer, 0, MIB)).bytesRead > 0);
    await file.close();
  }
}

function makeData(userDir: string): void {
  const chunk = Buffer.alloc(MIB);
  mkdirSync(join(userDir, 'many'), { recursive: true });
  for (let i = 0; i < SIZE_MIB; i++)
    writeFileSync(join(userDir, 'many', `file-${i}.bin`), randomFillSync(chunk));
  mkdirSync(join(userDir, 'one'), { recursive: true });
  const fd = openSync(join(userDir, 'one', 'one.bin'), 'w');
  for (let i = 0; i < SIZE_MIB; i++) writeSync(fd, randomFillSync(chunk));
  closeSync(fd);
  for (let i = 0; i < 1000; i++) {
    const folder = join(userDir, 'thousand', `folder-${i % 10}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file-${i}.bin`), randomFillSync(chunk.subarray(0, 64 * 1024)));
  }
  execFileSync('sync');
}

const digestTimes = new Map<string, number>();

/**
 * CPU seconds one core takes here to digest 1 GiB with each of `algorithms` (node:crypto, as the worker), from
 * 256 MiB; CPU time rather than wall time, so that other work on the machine does not count. Measured once
 * per set of algorithms.
 */
function digestSeconds(algorithms: string[]): number {
  const key = algorithms.join(',');
  const known = digestTimes.get(key);
  if (known !== undefined) return known;
  const chunk = randomFillSync(Buffer.alloc(MIB));
  const before = process.cpuUsage();
  const hashes = algorithms.map((algorithm) => createHash(algorithm));
  for (let i = 0; i < 256; i++) for (const hash of hashes) hash.update(chunk);
  for (const hash of hashes) hash.digest();
  const { user, system } = process.cpuUsage(before);
  const seconds = ((user + system) / 1e6) * 4;
  digestTimes.set(key, seconds);
  return seconds;
}

const run = promisify(execFile);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function row(what: string, data: string, bytes: number, seconds: number, cpuSeconds: number, note = ''): Row {
  return { what, data, seconds, mbPerSecond: bytes / 1e6 / seconds, cpuSeconds, note };
}

void main();
