import type { Command } from 'commander';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { jobStatusPath } from '@app/job-kinds';
import { parseAddress } from '../address';
import { resourcesPath } from '../client';
import { CliError, EXIT } from '../errors';
import { followJob, jobHeaders } from '../job';
import { humanBytes } from '../output';
import type { Session } from '../session';
import { emailOption } from './options';
import { reportFixity } from './report';

interface DownloadOptions {
  output?: string;
  email: string;
}

export function registerDownload(program: Command, session: (command: Command) => Session): void {
  program
    .command('download')
    .description("download a resource as a BagIt zip, every file checked against the target's checksums")
    .argument('<target:id>', 'the resource')
    .option(
      '-o, --output <file>',
      "where to save the zip (default: the service's name for it; a folder: that name in it)",
    )
    .addOption(emailOption())
    .action(async (address: string, options: DownloadOptions, command: Command) =>
      download(session(command), address, options),
    );
}

async function download(session: Session, text: string, options: DownloadOptions): Promise<void> {
  const { target, id = '' } = parseAddress(text, true);
  const intoFolder = await checkOutput(options.output);
  const headers = await jobHeaders(session, 'download', [target]);
  await session.client.json(resourcesPath(target, id, '.zip/'), {
    headers: { ...headers, 'presqt-email-opt-in': options.email },
    expect: [202],
  });
  const finished = await followJob(session, 'download', headers);
  const file =
    options.output === undefined
      ? resolve(finished.zip_name)
      : intoFolder
        ? join(options.output, finished.zip_name)
        : resolve(options.output);
  const bytes = await saveZip(session, headers, file);
  session.output.result({ ...finished, file, bytes }, () => [
    `Saved ${file} (${humanBytes(bytes)})`,
    finished.message,
    ...reportFixity(finished),
  ]);
  if (finished.failed_fixity.length > 0) process.exitCode = EXIT.fixity;
}

/** Whether `output` is an existing folder; a file's folder must exist, checked before any job starts. */
async function checkOutput(output: string | undefined): Promise<boolean> {
  if (output === undefined) return false;
  const [self, parent] = await Promise.all([
    stat(output).catch(() => null),
    stat(dirname(resolve(output))).catch(() => null),
  ]);
  if (self?.isDirectory()) return true;
  if (!parent?.isDirectory())
    throw new CliError(`Cannot save to ${output}: its folder does not exist.`, EXIT.usage);
  return false;
}

/** Streams the finished job's zip to `file` (through `file.part`, so a cut-off download is never taken for one). */
async function saveZip(session: Session, headers: Record<string, string>, file: string): Promise<number> {
  const response = await session.client.stream(jobStatusPath('download', 'zip'), {
    headers,
    signal: session.signal,
  });
  const total = Number(response.headers.get('content-length') ?? 0);
  const bar = session.progress('Saving  ');
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      bar.update(
        bytes,
        total || bytes,
        total ? `${humanBytes(bytes)}/${humanBytes(total)}` : humanBytes(bytes),
      );
      callback(null, chunk);
    },
  });
  const part = `${file}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body as ReadableStream), counter, createWriteStream(part), {
      signal: session.signal,
    });
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    // a file system error, not Ctrl-C nor the service
    if ((error as NodeJS.ErrnoException).syscall)
      throw new CliError(`Cannot save ${file}: ${(error as NodeJS.ErrnoException).code}.`);
    throw error;
  } finally {
    bar.stop();
  }
  return bytes;
}
