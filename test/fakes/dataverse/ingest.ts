import type { Dataset, DataFile, DataverseState, FileEntry } from './model';

/**
 * Tabular ingest as Dataverse runs it after an upload (IngestServiceBean in IQSS/dataverse; the User Guide's
 * "Tabular Data File Ingest"): the dataset is locked (`Ingest`) while it runs; then the file is served in an
 * archival tab-separated form, its label gets the extension `.tab`, its size becomes the archival form's,
 * and the upload is kept as the "saved original" (its name, size and format), whose checksum stays the
 * file's. The fake ingests CSV and TSV uploads, after a delay the test sets.
 */

const INGESTED_TYPES = new Set(['text/csv', 'text/comma-separated-values', 'text/tsv']);

export function isIngestable(contentType: string): boolean {
  return INGESTED_TYPES.has(contentType);
}

/** The type Dataverse finds for a file by its extension, where the content tells nothing more (FileUtil). */
export function typeByName(name: string): string {
  const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  const types: Record<string, string> = {
    csv: 'text/csv',
    tsv: 'text/tsv',
    tab: 'text/tab-separated-values',
    txt: 'text/plain',
    md: 'text/markdown',
    json: 'application/json',
    zip: 'application/zip',
  };
  return types[extension] ?? 'application/octet-stream';
}

/**
 * The archival form of a delimited text file: tab-separated, text values quoted, as Dataverse's ingest writes
 * `.tab` files (a CSV's commas become tabs; "a" is quoted, 1 is not).
 */
export function archivalForm(content: Buffer, delimiter: string): Buffer {
  const lines = content
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line !== '');
  const cell = (value: string) => (/^-?\d+(\.\d+)?$/.test(value) ? value : `"${value.replace(/"/g, '""')}"`);
  return Buffer.from(lines.map((line) => line.split(delimiter).map(cell).join('\t')).join('\n') + '\n');
}

/** Locks the dataset for an ingest of `file` that ends `ms` from now. */
export function startIngest(dataset: Dataset, file: DataFile, ms: number, user: string): void {
  const until = Date.now() + ms;
  file.ingestAt = until;
  dataset.locks.push({ type: 'Ingest', user, start: new Date(), until });
}

/** Ends the locks whose time has passed and carries out the ingests that were due, everywhere. */
export function settle(state: DataverseState): void {
  const now = Date.now();
  for (const dataset of state.datasets.values()) {
    dataset.locks = dataset.locks.filter((lock) => lock.until === undefined || lock.until > now);
    for (const version of [dataset.draft, dataset.published]) {
      for (const entry of version?.files ?? []) {
        const file = state.files.get(entry.dataFileId);
        if (file?.ingestAt !== undefined && file.ingestAt <= now) ingest(file, entry);
      }
    }
  }
}

function ingest(file: DataFile, entry: FileEntry): void {
  file.ingestAt = undefined;
  file.original = { content: file.content, name: entry.label, format: file.contentType };
  file.content = archivalForm(file.content, file.contentType === 'text/tsv' ? '\t' : ',');
  file.contentType = 'text/tab-separated-values';
  entry.label = entry.label.replace(/\.[^.]*$/, '') + '.tab';
}
