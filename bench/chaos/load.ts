import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeBagZip } from '../../test/support/bags';

export type JobKind = 'download' | 'upload' | 'transfer';
export type Ending = 'finished' | 'failed' | 'cancelled' | 'stuck' | 'not started';

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
  /** why a job failed, as its status said */
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const fsId = (path: string) => Buffer.from(path, 'utf8').toString('base64url');

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
    const kind = pick<JobKind>(['download', 'upload', 'transfer']);
    runs.push(await runJob(user, kind, n, settings));
  }
}

async function runJob(user: string, kind: JobKind, n: number, settings: LoadSettings): Promise<JobRun> {
  const token = `${user}-token`;
  const run: JobRun = { user, kind, ending: 'not started' };
  const headers: Record<string, string> = {
    'presqt-source-token': token,
    'presqt-destination-token': token,
    'presqt-email-opt-in': '',
    'presqt-file-duplicate-action': 'ignore',
    'presqt-keyword-action': 'none',
  };
  const started = await startJob(run, n, settings, headers);
  if (!started?.ok) return run;
  if (Math.random() < settings.cancelRate) {
    await sleep(100 + Math.random() * 700);
    await send(`${settings.baseUrl}/api_v1/job_status/${kind}/`, { method: 'PATCH', headers });
  }
  const statusPath = kind === 'download' ? 'download.json' : kind;
  const deadline = Date.now() + settings.jobTimeoutMs;
  for (;;) {
    const answer = await send(`${settings.baseUrl}/api_v1/job_status/${statusPath}/`, { headers });
    // 200 a finished job; 500 with the body of a failed or cancelled one; anything else is asked again
    if (answer && answer.status !== 202 && answer.status !== 503) {
      const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
      if (typeof body.status === 'string') return finish(run, body, settings, headers);
    }
    if (Date.now() > deadline) return { ...run, ending: 'stuck' };
    await sleep(250);
  }
}

async function startJob(
  run: JobRun,
  n: number,
  settings: LoadSettings,
  headers: Record<string, string>,
): Promise<Response | null> {
  const resources = `${settings.baseUrl}/api_v1/targets`;
  if (run.kind === 'download') {
    run.source = pick(settings.projects);
    return send(`${resources}/lab/resources/${fsId(run.source)}.zip/`, { headers });
  }
  if (run.kind === 'transfer') {
    run.source = pick(settings.projects);
    const body = JSON.stringify({
      source_target_name: 'lab',
      source_resource_id: fsId(run.source),
      keywords: [],
    });
    const json = { ...headers, 'content-type': 'application/json' };
    return send(`${resources}/archive/resources/`, { method: 'POST', headers: json, body });
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
  return send(`${resources}/archive/resources/`, { method: 'POST', headers, body: form });
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
  const zip = await send(`${settings.baseUrl}/api_v1/job_status/download.zip/`, { headers });
  if (!zip?.ok) return { ...done, ending: 'failed', message: `the zip answered ${zip?.status ?? 'nothing'}` };
  done.zipFile = join(settings.workDir, `${run.user}-${Date.now()}.zip`);
  writeFileSync(done.zipFile, Buffer.from(await zip.arrayBuffer()));
  return done;
}
