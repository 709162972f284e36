import { byName } from '../upstream-values';

/**
 * The JSON Zenodo's deposit API answers with, as far as the connector reads it
 * (https://developers.zenodo.org/#representation and #deposition-files), and the
 * small readings of it that several parts of the connector share.
 */

export interface DepositionMetadata {
  title?: string;
  upload_type?: string;
  description?: string;
  keywords?: string[];
  creators?: { name: string }[];
  [field: string]: unknown;
}

/** A deposition file (https://developers.zenodo.org/#deposition-files). */
export interface DepositionFile {
  id: string;
  filename: string;
  filesize: number;
  /** md5 as hex; InvenioRDM-based services may prefix it with `md5:` */
  checksum: string;
  links?: { self?: string; download?: string };
}

/** A deposition (https://developers.zenodo.org/#deposit). */
export interface Deposition {
  id: number;
  created: string;
  modified: string;
  owner?: number;
  /** `unsubmitted`, `inprogress` (published, being edited), `done` (published) or `error` */
  state: string;
  /** whether it has been published */
  submitted: boolean;
  title?: string;
  metadata?: DepositionMetadata;
  files?: DepositionFile[];
  links?: { bucket?: string; html?: string };
}

/**
 * A published record as `GET /records/{id}` answers it (https://developers.zenodo.org/#records, "Retrieve";
 * its shape is not documented there: this is zenodo-rdm's ZenodoSchema, site/zenodo_rdm/legacy/serializers/
 * schemas/zenodojson.py, which answers `Accept: application/json`).
 */
export interface ZenodoRecord {
  id: number;
  created: string;
  updated?: string;
  modified?: string;
  title?: string;
  /** the legacy deposition metadata, with `resource_type`, `license` and grouped fields in their record form */
  metadata?: Record<string, unknown>;
  files?: RecordFile[];
  owners?: { id: number | string }[];
  links?: { html?: string };
}

/** A file of a record: its bytes at `links.self`, its checksum as `md5:<hex>`. */
export interface RecordFile {
  id: string;
  key: string;
  size: number;
  checksum: string;
  links?: { self?: string };
}

/** An object stored through the bucket API (https://developers.zenodo.org/#quickstart-upload). */
export interface BucketObject {
  key: string;
  size: number;
  /** `md5:<hex>` */
  checksum: string;
}

/** The md5 a Zenodo checksum holds (`<hex>` or `md5:<hex>`), lower-case; null for another algorithm's. */
export function md5Of(checksum: string | undefined): string | null {
  if (!checksum) return null;
  const separator = checksum.indexOf(':');
  if (separator >= 0 && checksum.slice(0, separator).toLowerCase() !== 'md5') return null;
  const hex = checksum.slice(separator + 1).toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

/** A deposition's title: the top-level copy Zenodo keeps of `metadata.title`, which is "" until one is set. */
export function depositionTitle(deposition: Deposition): string {
  return deposition.title || deposition.metadata?.title || `Untitled deposition ${deposition.id}`;
}

/** Zenodo's kind of upload (dataset, software, ...); a new deposition has none until its metadata is set. */
export function depositionKind(deposition: Deposition): string {
  return deposition.metadata?.upload_type ?? 'deposition';
}

/** Files in the order of their names, so that walks and listings are reproducible. */
export function byFilename(a: DepositionFile, b: DepositionFile): number {
  return byName(a.filename, b.filename);
}

/**
 * How a user is named: the deposit API tells only the owner's number of each deposition
 * (https://developers.zenodo.org/#representation), and nothing at all before the first one.
 */
export function userName(owner: number | undefined): string {
  return owner === undefined ? 'Zenodo user' : `Zenodo user ${owner}`;
}
