import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { completeZipEntries, openZipEntryAt } from '@app/archive';
import type { CopyIntoEntry } from '@app/bagit';
import { copyFile } from '@app/fixity';

/** An entry that an interrupted run finished writing into its partial zip. */
export interface EarlierEntry {
  size: number;
  open(): Readable;
  /**
   * A stored entry's bytes copied into the new zip's entry as a byte range, by a hashing thread (digests and
   * CRC-32 computed there); null for a deflated entry, whose bytes only open() gives.
   */
  copyInto: CopyIntoEntry | null;
}

/**
 * The partial zips of one run's download. A run resumed after its worker died does not append to the zip it
 * was writing (it has no central directory, and entries being filled may be incomplete), so it writes a new one, numbered
 * after the earlier ones, and copies the files they already hold from disk instead of fetching them from the
 * target again.
 */
export class PartialZips {
  private constructor(
    private readonly earlier: string[],
    /** the partial zip this run writes */
    readonly next: string,
  ) {}

  static async in(workDir: string, zipName: string): Promise<PartialZips> {
    const numbered = new RegExp(`^${zipName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.partial-(\\d+)$`);
    const earlier = (await readdir(workDir))
      .map((name) => ({ name, number: Number(numbered.exec(name)?.[1] ?? NaN) }))
      .filter(({ number }) => !Number.isNaN(number))
      .sort((a, b) => b.number - a.number);
    const next = `${zipName}.partial-${(earlier[0]?.number ?? 0) + 1}`;
    return new PartialZips(
      earlier.map(({ name }) => join(workDir, name)),
      join(workDir, next),
    );
  }

  /**
   * The payload files, by their path under `data/`, that earlier partial zips hold complete; newest zip
   * first. `storedSizes` gives the size each file had (from the run's checkpoints) to find entries quickly.
   */
  async entries(bagName: string, storedSizes: Map<string, number>): Promise<Map<string, EarlierEntry>> {
    const payloadPrefix = `${bagName}/data/`;
    const found = new Map<string, EarlierEntry>();
    for (const zip of this.earlier) {
      const entries = completeZipEntries(zip, (name) =>
        name.startsWith(payloadPrefix) ? storedSizes.get(name.slice(payloadPrefix.length)) : undefined,
      );
      for await (const entry of entries) {
        const path = entry.name.slice(payloadPrefix.length);
        if (!entry.name.startsWith(payloadPrefix) || found.has(path)) continue;
        found.set(path, {
          size: entry.size,
          open: () => openZipEntryAt(zip, entry),
          copyInto: entry.deflated
            ? null
            : (target, algorithms) => copyFile(zip, entry.size, target, algorithms, entry.dataStart),
        });
      }
    }
    return found;
  }

  /** Removes the earlier zips once the new one is complete. */
  async removeEarlier(): Promise<void> {
    await Promise.all(this.earlier.map((zip) => rm(zip, { force: true })));
  }
}
