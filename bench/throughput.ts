/**
 * Download and transfer throughput of the real API and worker, beside `cp -r` and `rclone copy` of the same
 * data on the same disk, in one run; with the worker's peak RSS and the time to the 202.
 *
 *   npm run bench            (needs a build, redis-server and rclone: apt-get install -y redis-server rclone)
 *   BENCH_MIB=256 npm run bench   (a smaller data set, for a quick look; HASH_THREADS and FILE_TRANSFERS
 *                                  pass through to the worker)
 *   BENCH_DATA=many npm run bench (only the many-files set, or `one`)
 *
 * Data: "many" = BENCH_MIB files of 1 MiB; "one" = one file of BENCH_MIB MiB; random bytes (incompressible).
 *
 * Remote targets (BENCH_REMOTE=0 leaves them out, BENCH_REMOTES=zenodo,osf picks some): the connectors
 * against the test suite's fake upstreams on this machine, each answering 20 ms late (BENCH_LATENCY_MS) as a
 * repository on the internet would, with a transfer from the filesystem into each and back of "thousand" =
 * 1,000 files of 64 KiB in 10 folders, and for Zenodo (which keeps such a tree as one zip) also of "one".
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { writeTextBag } from './text-bag';

const MIB = 1 << 20;
const SIZE_MIB = Number(process.env.BENCH_MIB ?? 1024);
const TOKEN = 'bench-token';
/** BENCH_DATA=many (or one) runs only that data set */
const DATA_SETS = process.env.BENCH_DATA ? [process.env.BENCH_DATA] : ['many', 'one'];
const REMOTE = process.env.BENCH_REMOTE !== '0';
/** BENCH_REMOTES=zenodo,osf runs only those remote targets */
const REMOTE_NAMES = process.env.BENCH_REMOTES?.split(',');
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
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
    const rows = baselineRows(work, sourceRoot);
    const remotes = REMOTE ? await startRemoteTargets(LATENCY_MS, ['bench_src', 'bench_dst']) : [];
    stops.push(...remotes.map((remote) => () => remote.stop()));
    const stack = await startBenchStack(work, writeTargets(work, sourceRoot, remotes));
    stops.push(() => Promise.resolve(stack.stop()));
    const accepted: string[] = [];
    const uploads: UploadAccept[] = [];
    const job = (what: string, data: string, run: JobRun) => {
      const note = `worker peak RSS ${run.peakRssMiB} MiB`;
      rows.push(row(what, data, bytesOf(data), run.seconds, run.workerCpuSeconds, note));
      accepted.push(`${what}, ${data}: ${run.acceptMs} ms`);
    };
    await localJobs(stack, work, job, uploads);
    const smallAccepts = await smallUploads(stack, work);
    await remoteJobs(stack, remotes, job);
    printTable(rows, accepted, uploads);
    const sorted = [...smallAccepts].sort((a, b) => a - b);
    console.log(
      `Small uploads (a bag of one small file, ${sorted.length} in turn), start request to 202: median ${sorted[sorted.length >> 1]} ms, slowest ${sorted[sorted.length - 1]} ms.`,
    );
  } finally {
    await Promise.all(stops.map((stop) => stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

/** `cp -r` and `rclone copy --checksum` of each data set, on the same disk. */
function baselineRows(work: string, sourceRoot: string): Row[] {
  const rows: Row[] = [];
  for (const data of REMOTE ? [...DATA_SETS, 'thousand'] : DATA_SETS) {
    const from = join(sourceRoot, 'bench', data);
    const copy = (what: string, command: string, args: string[]) => {
      const cpuBefore = childrenCpuSeconds();
      const seconds = timed(() => execFileSync(command, args));
      return row(what, data, bytesOf(data), seconds, childrenCpuSeconds() - cpuBefore);
    };
    rows.push(copy('cp -r', 'cp', ['-r', from, join(work, `cp-${data}`)]));
    const rcloneArgs = ['copy', '--transfers', '4', '--checksum', from, join(work, `rclone-${data}`)];
    rows.push(copy('rclone copy (--transfers 4, checksums)', 'rclone', rcloneArgs));
  }
  return rows;
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

/**
 * A download, an upload of the downloaded bag (into a folder of its own) and a filesystem-to-filesystem
 * transfer of each local data set.
 */
async function localJobs(
  { base, worker }: BenchStack,
  work: string,
  job: RecordJob,
  uploads: UploadAccept[],
): Promise<void> {
  const source = { 'presqt-source-token': TOKEN };
  for (const data of DATA_SETS) {
    const id = Buffer.from(data).toString('base64url');
    const download = await runJob(
      base,
      { path: `/api_v1/targets/bench_src/resources/${id}.zip/`, method: 'GET' },
      { ...source, 'presqt-email-opt-in': '' },
      { path: '/api_v1/job_status/download.json/', headers: source },
      worker,
    );
    job('PresQT download (zip)', data, download);
    const bag = join(work, `bag-${data}.zip`);
    await saveDownloadZip(base, bag);
    const upload = await uploadBag(base, worker, bag);
    job('PresQT upload (the downloaded bag)', data, upload.run);
    uploads.push({ data, ...upload });
    rmSync(bag);
    const transfer = await runTransfer(base, worker, 'bench_src', 'bench_dst', id, [TOKEN, TOKEN]);
    job('PresQT transfer (fs to fs)', data, transfer);
  }
}

async function saveDownloadZip(base: string, file: string): Promise<void> {
  const response = await fetch(`${base}/api_v1/job_status/download.zip/`, {
    headers: { 'presqt-source-token': TOKEN },
  });
  if (response.status !== 200 || !response.body) throw new Error(`download.zip: ${response.status}`);
  await pipeline(Readable.fromWeb(response.body), createWriteStream(file));
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
  remotes: BenchRemote[],
  job: RecordJob,
): Promise<void> {
  const late = `(fake, ${LATENCY_MS} ms)`;
  for (const remote of remotes.filter(({ name }) => !REMOTE_NAMES || REMOTE_NAMES.includes(name))) {
    for (const data of REMOTE_DATA[remote.name]) {
      const id = Buffer.from(data).toString('base64url');
      const there = await runTransfer(base, worker, 'bench_src', remote.name, id, [TOKEN, remote.token]);
      job(`PresQT transfer fs to ${remote.name} ${late}`, data, there);
      const tokens: [string, string] = [remote.token, TOKEN];
      const back = await runTransfer(base, worker, remote.name, 'bench_dst', there.destinationId, tokens);
      job(`PresQT transfer ${remote.name} ${late} to fs`, data, back);
    }
  }
}

function printTable(rows: Row[], accepted: string[], uploads: UploadAccept[]): void {
  console.log(
    `\nData: "many" = ${SIZE_MIB} files of 1 MiB, "one" = 1 file of ${SIZE_MIB} MiB, "thousand" = 1,000 files of 64 KiB; ${process.env.BENCH_DIR ?? tmpdir()} on this machine.\n`,
  );
  console.log('| what | data | seconds | MB/s | vs rclone | CPU s | note |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const rclone = rows.find((other) => other.what.startsWith('rclone') && other.data === r.data)!;
    console.log(
      `| ${r.what} | ${r.data} | ${r.seconds.toFixed(2)} | ${r.mbPerSecond.toFixed(0)} | ${(r.mbPerSecond / rclone.mbPerSecond).toFixed(2)} | ${r.cpuSeconds.toFixed(1)} | ${r.note} |`,
    );
  }
  console.log(
    `\nCPU s: CPU time of the copying process, all its threads (for a job, the worker's), on ${availableParallelism()} cores.`,
  );
  const digests = ['md5', 'sha256', 'sha512'].map(
    (algorithm) => `${algorithm} ${digestSeconds([algorithm])}`,
  );
  console.log(
    `CPU s to digest 1 GiB on one core here: ${digests.join(', ')}; all three ${digestSeconds(['md5', 'sha256', 'sha512'])}.`,
  );
  console.log(`\nTime from the start request to the 202: ${accepted.join('; ')}`);
  for (const { data, bagBytes, receivedToAcceptMs } of uploads) {
    const mibPerSecond = bagBytes / MIB / (receivedToAcceptMs / 1000);
    console.log(
      `Upload of the ${data} bag (${(bagBytes / MIB).toFixed(0)} MiB): ${receivedToAcceptMs.toFixed(0)} ms from its last byte to the 202 (${mibPerSecond.toFixed(0)} MiB/s checked).`,
    );
  }
}

function target(name: string, root: string, partners: string[]) {
  const both = { transfer_in: partners, transfer_out: partners };
  return benchTarget(name, 'filesystem', { root, tokens: { [TOKEN]: 'bench' } }, both);
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

/** Seconds one core takes here to digest 1 GiB with `algorithms` (node:crypto, as the worker), from 128 MiB. */
function digestSeconds(algorithms: string[]): string {
  const chunk = randomFillSync(Buffer.alloc(MIB));
  const seconds = timed(() => {
    const hashes = algorithms.map((algorithm) => createHash(algorithm));
    for (let i = 0; i < 128; i++) for (const hash of hashes) hash.update(chunk);
    for (const hash of hashes) hash.digest();
  });
  return (seconds * 8).toFixed(2);
}

function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

function row(what: string, data: string, bytes: number, seconds: number, cpuSeconds: number, note = ''): Row {
  return { what, data, seconds, mbPerSecond: bytes / 1e6 / seconds, cpuSeconds, note };
}

void main();
