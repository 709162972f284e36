import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOB_KINDS, jobStatusPath, jsonStatusPath, type JobKind } from '@app/job-kinds';
import { makeBagZip } from './bags';
import { filesystemEntry, fsId, writeTargetsFile } from './fs-fixtures';

/**
 * Users' jobs as a client runs them against a running API, for the chaos run (bench/chaos) and the failover
 * test: downloads, uploads and transfers between two filesystem targets, `lab` (seeded) and `archive`, each
 * job started, followed to its end (asking again through 503s and dropped connections) and its zip saved.
 * job-outcomes.ts checks what they left.
 */
/** `lost`: accepted (202), and then the API knew nothing of it; `stuck`: not ended in time */
export type Ending = 'finished' | 'failed' | 'cancelled' | 'stuck' | 'lost' | 'not started';

/** One job the load started (or tried to), and how it ended. */
export interface JobRun {
  user: string;
  kind: JobKind;
  ending: Ending;
  /** the lab project downloaded or transferred */
  source?: string;
  /** the title of an upload's new project */
  uploadTitle?: string;
  /** the uploaded files, by path inside the project */
  uploaded?: Record<string, Buffer>;
  destinationId?: string;
  /** a finished download's zip on disk */
  zipFile?: string;
  /** why a job failed (as its status said), or was stuck (its last status) */
  message?: string;
}

export interface LoadSettings {
  baseUrl: string;
  workDir: string;
  projects: string[];
  /** how long a job may take before it counts as stuck */
  jobTimeoutMs: number;
  cancelRate: number;
}

/** Where the jobs go: the two targets' folders, the targets file naming them, and the users with a token each. */
export interface Lab {
  lab: string;
  archive: string;
  targetsFile: string;
  users: string[];
}

/**
 * `lab` and `archive` below `work`, each the other's transfer partner, with a token `<user>-token` per user;
 * in lab, every user has each of `projects`: `files` files of 1 MiB each, in two folders.
 */
export function prepareLab(work: string, userCount: number, projects: string[], files = 20): Lab {
  const [lab, archive] = ['lab', 'archive'].map((name) => join(work, name));
  [lab, archive].forEach((dir) => mkdirSync(dir, { recursive: true }));
  const users = Array.from({ length: userCount }, (_, i) => `u${i + 1}`);
  for (const user of users)
    for (const project of projects)
      for (let i = 0; i < files; i++) {
        const dir = join(lab, user, project, `set-${i % 2}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `file-${i}.bin`), Buffer.alloc(1 << 20, `${user} ${project} ${i}`));
      }
  const tokens = Object.fromEntries(users.map((user) => [`${user}-token`, user]));
  const partners = (other: string) => ({
    supported_transfer_partners: { transfer_in: [other], transfer_out: [other] },
  });
  const targetsFile = writeTargetsFile([
    { ...filesystemEntry('lab', lab, partners('archive')), options: { root: lab, tokens } },
    { ...filesystemEntry('archive', archive, partners('lab')), options: { root: archive, tokens } },
  ]);
  return { lab, archive, targetsFile, users };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];

/** A request that may meet a restarting Redis or a dying process: null for no answer at all. */
async function send(url: string, init: RequestInit): Promise<Response | null> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  } catch {
    return null;
  }
}

/** One user's jobs, one after another, until `until`. */
export async function runUser(
  user: string,
  settings: LoadSettings,
  until: number,
  runs: JobRun[],
): Promise<void> {
  for (let n = 1; Date.now() < until; n++) {
    const kind = pick(JOB_KINDS);
    runs.push(await runJob(user, kind, n, settings));
  }
}

/** The headers of a user's jobs: the same token at both targets, no email, new projects beside existing ones. */
function jobHeaders(user: string): Record<string, string> {
  const token = `${user}-token`;
  return {
    'presqt-source-token': token,
    'presqt-destination-token': token,
    'presqt-email-opt-in': '',
    'presqt-file-duplicate-action': 'ignore',
    'presqt-keyword-action': 'none',
  };
}

/** Starts a job, cancels one in `cancelRate` of them soon after, and follows it to its end. */
export async function runJob(
  user: string,
  kind: JobKind,
  n: number,
  settings: LoadSettings,
): Promise<JobRun> {
  const run: JobRun = { user, kind, ending: 'not started' };
  const { answer } = await startJob(run, n, settings);
  if (!answer?.ok) return run;
  if (Math.random() < settings.cancelRate) {
    await sleep(100 + Math.random() * 700);
    await send(`${settings.baseUrl}${jobStatusPath(kind)}`, {
      method: 'PATCH',
      headers: jobHeaders(user),
    });
  }
  return followJob(run, settings);
}

/** Asks for the job's status until it has ended (or `jobTimeoutMs` passed); saves a finished download's zip. */
export async function followJob(run: JobRun, settings: LoadSettings): Promise<JobRun> {
  const headers = jobHeaders(run.user);
  const deadline = Date.now() + settings.jobTimeoutMs;
  let last = 'no answer';
  for (;;) {
    const answer = await send(`${settings.baseUrl}${jsonStatusPath(run.kind)}`, { headers });
    const body = (await answer?.json().catch(() => ({}))) as Record<string, unknown> | undefined;
    if (answer) last = `${answer.status} ${JSON.stringify(body)}`;
    // 200 a finished job; 500 with the body of a failed or cancelled one; 404: no such job (any more)
    if (answer && body && answer.status !== 202 && answer.status !== 503) {
      if (typeof body.status === 'string') return finish(run, body, settings, headers);
      if (answer.status === 404) return { ...run, ending: 'lost', message: String(body.error) };
    }
    if (Date.now() > deadline) return { ...run, ending: 'stuck', message: `last answered ${last}` };
    await sleep(250);
  }
}

/** The answer to the request that started a job (null: none came, a dropped connection), and how long it took. */
export interface StartAnswer {
  answer: Response | null;
  elapsedMs: number;
}

/** Sends the request that starts the job (a download, a transfer, or the upload of a new bag). */
export async function startJob(run: JobRun, n: number, settings: LoadSettings): Promise<StartAnswer> {
  return (await prepareStart(run, n, settings))();
}

/**
 * Builds the request that starts the job and answers what sends it, as often as asked: a start tried again
 * sends the same request, and the upload's bag (12 MiB, hashed and zipped in this process) is made once,
 * before any answer is timed, rather than on this process's event loop between the sending and the answer of
 * other timed requests.
 */
export async function prepareStart(
  run: JobRun,
  n: number,
  settings: LoadSettings,
): Promise<() => Promise<StartAnswer>> {
  const { url, init } = await startRequest(run, n, settings);
  return async () => {
    const started = Date.now();
    const answer = await send(url, init);
    return { answer, elapsedMs: Date.now() - started };
  };
}

async function startRequest(
  run: JobRun,
  n: number,
  settings: LoadSettings,
): Promise<{ url: string; init: RequestInit }> {
  const headers = jobHeaders(run.user);
  const resources = `${settings.baseUrl}/api_v1/targets`;
  if (run.kind === 'download') {
    run.source = pick(settings.projects);
    return { url: `${resources}/lab/resources/${fsId(run.source)}.zip/`, init: { headers } };
  }
  if (run.kind === 'transfer') {
    run.source = pick(settings.projects);
    const body = JSON.stringify({
      source_target_name: 'lab',
      source_resource_id: fsId(run.source),
      keywords: [],
    });
    const json = { ...headers, 'content-type': 'application/json' };
    return { url: `${resources}/archive/resources/`, init: { method: 'POST', headers: json, body } };
  }
  run.uploadTitle = `Upload ${run.user} ${n}`;
  run.uploaded = {};
  for (let i = 0; i < 12; i++)
    run.uploaded[`part-${i}.bin`] = Buffer.alloc(1 << 20, `${run.uploadTitle} ${i}`);
  const files = Object.fromEntries(
    Object.entries(run.uploaded).map(([path, bytes]) => [`${run.uploadTitle}/${path}`, bytes]),
  );
  const form = new FormData();
  form.append('presqt-file', new Blob([await makeBagZip({ files })]), 'bag.zip');
  return { url: `${resources}/archive/resources/`, init: { method: 'POST', headers, body: form } };
}

async function finish(
  run: JobRun,
  body: Record<string, unknown>,
  settings: LoadSettings,
  headers: Record<string, string>,
): Promise<JobRun> {
  const ending = body.status as Ending;
  const done: JobRun = {
    ...run,
    ending,
    destinationId: body.destination_resource_id as string | undefined,
    ...(ending === 'failed' ? { message: String(body.message) } : {}),
  };
  if (ending !== 'finished' || run.kind !== 'download') return done;
  const zip = await fetchZip(settings, headers);
  if (!zip?.ok) return { ...done, ending: 'failed', message: `the zip answered ${zip?.status ?? 'nothing'}` };
  done.zipFile = join(settings.workDir, `${run.user}-${Date.now()}.zip`);
  writeFileSync(done.zipFile, Buffer.from(await zip.arrayBuffer()));
  return done;
}

/** A finished download's zip, asked for again through 503s and dropped connections for a while. */
async function fetchZip(settings: LoadSettings, headers: Record<string, string>): Promise<Response | null> {
  const deadline = Date.now() + settings.jobTimeoutMs;
  for (;;) {
    const zip = await send(`${settings.baseUrl}/api_v1/job_status/download.zip/`, { headers });
    if ((zip && zip.status !== 503) || Date.now() > deadline) return zip;
    await sleep(250);
  }
}
