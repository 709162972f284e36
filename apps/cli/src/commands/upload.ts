import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { parseAddress } from '../address';
import { resourcesPath } from '../client';
import { CliError, EXIT } from '../errors';
import { followJob, jobHeaders } from '../job';
import { humanBytes } from '../output';
import type { Session } from '../session';
import { duplicateOption, emailOption } from './options';
import { reportWrite } from './report';

interface UploadOptions {
  duplicate: string;
  email: string;
}

export function registerUpload(program: Command, session: (command: Command) => Session): void {
  program
    .command('upload')
    .description('upload a BagIt zip, or a folder (bagged here), as a new project or into a container')
    .argument('<bag.zip|folder>', 'a BagIt bag in a zip, or a folder to bag')
    .argument('<target[:container]>', 'the target, and the container to upload into (default: a new project)')
    .addOption(duplicateOption())
    .addOption(emailOption())
    .action(async (source: string, destination: string, options: UploadOptions, command: Command) =>
      upload(session(command), source, destination, options),
    );
}

async function upload(
  session: Session,
  source: string,
  destination: string,
  options: UploadOptions,
): Promise<void> {
  const { target, id } = parseAddress(destination, false);
  const found = await stat(source).catch(() => null);
  if (!found?.isFile() && !found?.isDirectory())
    throw new CliError(`${source} is neither a file nor a folder.`, EXIT.usage);
  const headers = await jobHeaders(session, 'upload', [target]);
  // a folder is bagged into a zip beside the other temporary files, and the zip removed once sent
  const bagDir = found.isDirectory() ? await mkdtemp(join(tmpdir(), 'presqt-bag-')) : null;
  try {
    const zip = bagDir ? join(bagDir, `${basename(resolve(source))}.zip`) : source;
    // loaded only here: the zip writer's modules take longer to load than most commands take to run
    if (bagDir) await (await import('../bag-folder')).bagFolder(session, source, zip);
    await sendPackage(session, resourcesPath(target, id), zip, {
      ...headers,
      'presqt-file-duplicate-action': options.duplicate,
      'presqt-email-opt-in': options.email,
    });
  } finally {
    if (bagDir) await rm(bagDir, { recursive: true, force: true });
  }
  const finished = await followJob(session, 'upload', headers);
  session.output.result(finished, () => [
    `${finished.message} ${target}:${finished.destination_resource_id}`,
    ...reportWrite(finished),
  ]);
  if (finished.failed_fixity.length > 0) process.exitCode = EXIT.fixity;
}

/**
 * POSTs the zip as the web client does (multipart/form-data, one `presqt-file` part), with a bar of the bytes
 * sent. The body is made here rather than by FormData, whose file part cannot be watched as it goes out.
 * Ctrl-C stops the sending; the service starts no job for a package it did not receive whole.
 */
async function sendPackage(
  session: Session,
  path: string,
  zip: string,
  headers: Record<string, string>,
): Promise<void> {
  const { size } = await stat(zip);
  const boundary = `presqt-${randomUUID()}`;
  const filename = basename(zip).replace(/["\\\r\n]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="presqt-file"; filename="${filename}"\r\n` +
      'Content-Type: application/zip\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const bar = session.progress('Sending ');
  let sent = 0;
  async function* body(): AsyncIterable<Buffer> {
    yield head;
    for await (const chunk of createReadStream(zip)) {
      sent += (chunk as Buffer).length;
      bar.update(sent, size || 1, `${humanBytes(sent)}/${humanBytes(size)}`);
      yield chunk as Buffer;
    }
    yield tail;
  }
  try {
    await session.client.json(path, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
      body: Readable.toWeb(Readable.from(body())) as ReadableStream<Uint8Array>,
      expect: [202],
      signal: session.signal,
    });
  } finally {
    bar.stop();
  }
}
