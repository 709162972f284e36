import { Injectable } from '@nestjs/common';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { openZip, ZipLimits, type ZipArchive, type ZipEntry } from '@app/archive';
import { BagZipWriter, SOFTWARE_AGENT } from '@app/bagit';

/** The bag's folder in the answered zip, as the original tool named it. */
const BAG_ROOT = 'presqt_bag';
/** Files operating systems leave behind, never payload: an entry whose first or last part is one is skipped. */
const JUNK = new Set(['.ds_store', '__macosx', 'thumbs.db', 'desktop.ini']);

function isJunk(path: string): boolean {
  const parts = path.toLowerCase().split('/');
  return JUNK.has(parts[0]) || JUNK.has(parts[parts.length - 1]);
}

/**
 * The BagIt tool (docs/behaviour.md#bagit-tool): the files of an uploaded zip become the payload of a new bag,
 * streamed as a zip, one file at a time, straight from the uploaded zip into the output.
 */
@Injectable()
export class BagToolService {
  constructor(private readonly zipLimits: ZipLimits) {}

  /**
   * Opens the zip (refusing it with 400, before a byte is written, when it is not a safe zip within the
   * limits) and answers a function that writes the bag to `output`.
   */
  async open(zipFile: string): Promise<(output: Writable) => Promise<void>> {
    const zip = await openZip(zipFile, this.zipLimits);
    return async (output) => {
      try {
        await writeBag(zip, output, dirname(zipFile));
      } finally {
        zip.close();
      }
    };
  }
}

/** `spillDir`: the uploaded zip's own directory, which goes with it */
async function writeBag(zip: ZipArchive, output: Writable, spillDir: string): Promise<void> {
  const writer = new BagZipWriter({
    output,
    rootName: BAG_ROOT,
    algorithms: ['md5', 'sha1'],
    bagInfo: { 'Bag-Software-Agent': SOFTWARE_AGENT },
    spillDir,
  });
  try {
    const entries = zip.entries.filter((entry) => !isJunk(entry.path));
    for (const entry of entries.filter((e) => !e.isDirectory)) {
      await writer.addPayloadFile(entry.path, await zip.openEntry(entry.path), entry.size);
    }
    for (const directory of emptyDirectories(entries)) await writer.addDirectory(directory.path);
    await writer.finalize();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** Directory entries with nothing below them, kept so that an empty folder survives bagging. */
function emptyDirectories(entries: readonly ZipEntry[]): ZipEntry[] {
  return entries.filter(
    (directory) =>
      directory.isDirectory && !entries.some((entry) => entry.path.startsWith(`${directory.path}/`)),
  );
}
