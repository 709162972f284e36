import { BagZipWriter } from '@app/bagit/bag-zip-writer';
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { addAbortSignal } from 'node:stream';
import { humanBytes } from './output';
import type { Session } from './session';

interface FolderFile {
  /** '/'-separated, from the folder's parent: `<folder>/sub/file.txt` */
  path: string;
  full: string;
  size: number;
}

/**
 * Bags `folder` into the zip file `zipPath`: one BagIt 1.0 bag named after the folder, whose data/ holds
 * the folder itself, so that the service makes a project of that name (or a folder of it in a container).
 * Files stream into the zip one at a time and are hashed on the way; none is held in memory.
 */
export async function bagFolder(session: Session, folder: string, zipPath: string): Promise<void> {
  const name = basename(resolve(folder));
  const files = await listFiles(session, resolve(folder), name);
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  const writer = new BagZipWriter({
    output: zipPath,
    rootName: name,
    bagInfo: {
      'Bag-Software-Agent': 'presqt command-line client',
      'External-Description': `Bagged from ${name}`,
    },
    // the zip's temporary directory, removed with it
    spillDir: dirname(zipPath),
  });
  const bar = session.progress('Bagging ');
  let bytes = 0;
  try {
    for (const file of files) {
      session.signal.throwIfAborted();
      bar.update(bytes, totalBytes, `${humanBytes(bytes)}/${humanBytes(totalBytes)} | ${file.path}`);
      await writer.addPayloadFile(
        file.path,
        addAbortSignal(session.signal, createReadStream(file.full)),
        file.size,
      );
      bytes += file.size;
    }
    await writer.finalize();
  } catch (error) {
    await writer.abort();
    throw error;
  } finally {
    bar.stop();
  }
}

/**
 * Every file below `root`, in name order. Empty folders are left out, as the service keeps none from a bag
 * (whose manifests list files only); symbolic links and special files can't go into a bag: they are left
 * out with a warning, as rclone does.
 */
async function listFiles(session: Session, root: string, name: string): Promise<FolderFile[]> {
  const found: FolderFile[] = [];
  const visit = async (dir: string, path: string): Promise<void> => {
    const children = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const child of children) {
      const full = join(dir, child.name);
      if (child.isDirectory()) await visit(full, `${path}/${child.name}`);
      else if (child.isFile())
        found.push({ path: `${path}/${child.name}`, full, size: (await lstat(full)).size });
      else session.output.note(`Leaving out ${full}: not a regular file or folder.`);
    }
  };
  await visit(root, name);
  return found;
}
