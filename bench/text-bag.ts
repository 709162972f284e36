import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import archiver from 'archiver';

/**
 * A BagIt 1.0 bag of `files` small text files below the folder `project`, zipped into `file` as it is made
 * (sha256 manifest, stored entries).
 */
export async function writeTextBag(file: string, project: string, files: number): Promise<void> {
  const zip = archiver('zip', { store: true });
  const written = finished(zip.pipe(createWriteStream(file)));
  const manifest: string[] = [];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const path = `data/${project}/folder-${Math.floor(i / 1000)}/file-${i}.txt`;
    const content = `file ${i} of the bench\n`;
    bytes += content.length;
    manifest.push(`${createHash('sha256').update(content).digest('hex')}  ${path}\n`);
    zip.append(content, { name: `bag/${path}` });
  }
  const tags: Record<string, string> = {
    'bagit.txt': 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n',
    'bag-info.txt': `Payload-Oxum: ${bytes}.${files}\n`,
    'manifest-sha256.txt': manifest.join(''),
  };
  for (const [name, text] of Object.entries(tags)) zip.append(text, { name: `bag/${name}` });
  await zip.finalize();
  await written;
}
