import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';

/** Polls a job-status URL until it stops answering 202; returns the last response. */
export async function pollUntilDone(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  timeoutMs = 60_000,
): Promise<request.Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(baseUrl).get(path).set(headers);
    if (res.status !== 202) return res;
    if (Date.now() > deadline)
      throw new Error(`job still in progress after ${timeoutMs} ms: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A transfer to start at the API: to and from which targets, which resource, with whose tokens. */
export interface TransferOrder {
  to: string;
  from: string;
  id: string;
  /** the resource at `to` to transfer into; a new project when absent */
  container?: string;
  sourceToken: string;
  destinationToken: string;
  duplicate?: string;
  keywordAction?: string;
}

/** Starts a transfer, expecting 202, and waits for its end; the final job-status response. */
export async function transferAndWait(baseUrl: string, order: TransferOrder): Promise<request.Response> {
  const headers = {
    'presqt-source-token': order.sourceToken,
    'presqt-destination-token': order.destinationToken,
    'presqt-file-duplicate-action': order.duplicate ?? 'ignore',
    'presqt-keyword-action': order.keywordAction ?? 'none',
    'presqt-email-opt-in': '',
    'content-type': 'application/json',
  };
  await request(baseUrl)
    .post(`/api_v1/targets/${order.to}/resources/${order.container ? `${order.container}/` : ''}`)
    .set(headers)
    .send({ source_target_name: order.from, source_resource_id: order.id, keywords: [] })
    .expect(202);
  return pollUntilDone(baseUrl, '/api_v1/job_status/transfer/', headers, 120_000);
}

/** Polls until `predicate` holds for the job-status body. */
export async function pollUntil(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  predicate: (body: Record<string, unknown>) => boolean,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(baseUrl).get(path).set(headers);
    if (predicate(res.body as Record<string, unknown>)) return res.body as Record<string, unknown>;
    if (Date.now() > deadline)
      throw new Error(`condition not met after ${timeoutMs} ms: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until `happened`, looking every 2 ms, for what a test must act on while a job runs (kill its worker,
 * cancel it): watched on disk, in Redis or in a process's output rather than through the job's status, as the
 * status shows progress written every 400 ms and a job between local disks can end between two polls of it.
 */
export async function watchUntil(
  happened: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await happened());) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Fetches a binary body (a zip) and writes it to a temp file; returns the file's path. */
export async function downloadTo(res: request.Response, name: string): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'presqt-zip-')), name);
  writeFileSync(file, res.body as Buffer);
  return file;
}

export function binaryParser(
  res: request.Response,
  callback: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/**
 * Checks the bag inside a zip with test/support/verify_bag.py: Python's standard library, no code shared with
 * the service (Debian has no bagit-python package and PyPI is out of reach here). Throws with its findings.
 */
export function verifyBagZip(zipFile: string, bagName: string): void {
  execFileSync('python3', [join(__dirname, 'verify_bag.py'), zipFile, bagName], { encoding: 'utf8' });
}

/** Extracts a zip into a fresh temp dir; returns the dir. */
export function extractZip(zipFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'presqt-unzip-'));
  execFileSync('python3', [
    '-c',
    'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])',
    zipFile,
    dir,
  ]);
  return dir;
}
