import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The journal of made folders in the job's staging directory. */
const JOURNAL = 'webdav-made-folders.jsonl';

/**
 * The folders a job's writers made with MKCOL, for taking them back. A folder is staged with the first file
 * stored in it (PutFileResult.staged), but a run killed before then leaves it unstaged: so each is also
 * written down as soon as it is made, in the job's staging directory, which outlives the run
 * (WriterOptions.stagingDir), and a later run's taking back finds it there.
 */
export class MadeFolders {
  /** made by this writer and not yet staged with a file */
  private unstaged: string[][] = [];
  private readonly journal?: string;

  constructor(stagingDir: string | undefined) {
    this.journal = stagingDir === undefined ? undefined : join(stagingDir, JOURNAL);
  }

  async add(path: string[]): Promise<void> {
    this.unstaged.push(path);
    if (this.journal) await appendFile(this.journal, `${JSON.stringify(path)}\n`);
  }

  /** The folders made since the last file was stored, which go staged with it. */
  takeUnstaged(): string[][] {
    return this.unstaged.splice(0);
  }

  /** Every folder this writer and the job's earlier runs made, each once. */
  async all(): Promise<string[][]> {
    const lines = this.journal
      ? await readFile(this.journal, 'utf8').catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return '';
          throw error;
        })
      : '';
    // a line cut short by a kill in the middle of its write names no folder that was made
    const recorded = lines.split('\n').flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as string[]] : [];
      } catch {
        return [];
      }
    });
    const byKey = new Map([...recorded, ...this.takeUnstaged()].map((path) => [path.join('/'), path]));
    return [...byKey.values()];
  }
}
