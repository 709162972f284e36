import { openZip, pathLimitProblem, type PathLimits, type ZipArchive, type ZipLimits } from '@app/archive';
import {
  findBagRoot,
  validateBag,
  zipBagSource,
  type BagSource,
  type BagValidation,
  type PayloadFile,
} from '@app/bagit';
import { JsonLinesWriter, ServiceError } from '@app/common';
import type { UploadedBag, UploadedFile } from '@app/jobs';
import {
  FTS_METADATA_FILE,
  INVALID_FTS_METADATA_FILE,
  MAX_FTS_METADATA_BYTES,
  mergeFtsMetadata,
  parseFtsMetadata,
  type FtsMetadata,
} from '@app/metadata';
import { WritableCheck, type WritableRules } from './check-writable';

export interface PackageInspection {
  zipFile: string;
  limits: ZipLimits;
  /** how deep and long a path written at the target may be */
  pathLimits: PathLimits;
  /** the package makes a new top-level resource, named after the one folder in its data/ */
  newProject: boolean;
  /** the target's rules for the names and files it can hold */
  writable: WritableRules;
  /** where the payload's UploadedFile records go, one JSON line each */
  payloadFile: string;
}

/**
 * Everything the service checks of an uploaded package before the 202 (docs/behaviour.md#upload-packages): a
 * safe zip within the limits, one top-level folder holding a complete, valid bag, for a new top-level resource
 * exactly one folder (and no files) in data/, and every name and file one the target can hold. The payload's records go
 * to a file as they are verified, so memory does not grow with them; answers the rest of what the worker needs.
 */
export async function inspectPackage(inspection: PackageInspection): Promise<UploadedBag> {
  const zip = await openZip(inspection.zipFile, inspection.limits);
  const payload = new JsonLinesWriter<UploadedFile>(inspection.payloadFile);
  try {
    const root = findBagRoot(zip.entries);
    refuseLongPaths(zip, root, inspection.pathLimits);
    const source = zipBagSource(zip, root);
    const listing = new PayloadListing(inspection, source, payload);
    const validation = await validateBag(source, (file) => listing.add(file));
    refuseInvalid(validation);
    const projectTitle = inspection.newProject ? listing.singleTopFolder() : null;
    if (projectTitle !== null) listing.writable.project(projectTitle);
    listing.writable.finish();
    await payload.close();
    const { files, bytes, nested } = listing;
    return {
      root,
      projectTitle,
      files,
      bytes,
      nested,
      algorithms: validation.algorithms,
      metadata: await listing.metadata(
        zip.entries.some((entry) => entry.path === `${root}${FTS_METADATA_FILE}`),
      ),
    };
  } catch (error) {
    await payload.discard();
    throw error;
  } finally {
    zip.close();
  }
}

/**
 * Every path the payload would write at the target (from data/, so a new project's title is its first
 * segment) within the depth and length limits, checked before any file is hashed.
 */
function refuseLongPaths(zip: ZipArchive, root: string, limits: PathLimits): void {
  const payload = `${root}data/`;
  for (const entry of zip.entries) {
    if (!entry.path.startsWith(payload)) continue;
    const problem = pathLimitProblem(entry.path.slice(payload.length).replace(/\/$/, ''), limits);
    if (problem)
      throw ServiceError.badRequest(
        `PresQT Error: the package holds a path the target cannot hold: ${problem}.`,
      );
  }
}

function refuseInvalid(validation: BagValidation): void {
  if (!validation.valid) {
    const details = validation.errors.slice(0, 5).join('; ');
    const checksums = validation.errors.some((error) => /^Checksum of /.test(error));
    throw ServiceError.badRequest(
      checksums
        ? `PresQT Error: Checksums failed to validate: ${details}`
        : `PresQT Error: The package is not a valid BagIt bag: ${details}`,
    );
  }
  if (validation.fetchItems.length > 0) {
    throw ServiceError.badRequest(
      'PresQT Error: The bag lists files to fetch (fetch.txt); upload a complete bag.',
    );
  }
}

/** The verified payload files as they come from the validator: recorded, counted, their names checked. */
class PayloadListing {
  readonly writable: WritableCheck;
  files = 0;
  bytes = 0;
  nested = false;
  /** what data/ holds at its top: whether files, and up to two folders (one is all a new project may have) */
  private readonly top = { files: false, folders: new Set<string>() };
  /** the payload's own metadata file, when valid */
  private own: FtsMetadata | null = null;

  constructor(
    private readonly inspection: PackageInspection,
    private readonly source: BagSource,
    private readonly payload: JsonLinesWriter<UploadedFile>,
  ) {
    this.writable = new WritableCheck(inspection.writable);
  }

  async add(file: PayloadFile): Promise<void> {
    const slash = file.path.indexOf('/');
    if (slash < 0) this.top.files = true;
    else if (this.top.folders.size < 2) this.top.folders.add(file.path.slice(0, slash));
    // a new project's files go into it, so its folder is not part of their paths
    const topLevel = this.inspection.newProject && slash >= 0 ? file.path.slice(0, slash + 1) : '';
    let path = file.path;
    if (path === `${topLevel}${FTS_METADATA_FILE}`) {
      // the resource's metadata file is merged when valid, and kept aside under another name when not
      const own = file.size <= MAX_FTS_METADATA_BYTES ? await this.readMetadata(`data/${file.path}`) : null;
      if (own) {
        this.own = own;
        return;
      }
      path = `${topLevel}${INVALID_FTS_METADATA_FILE}`;
    }
    const record = {
      bagPath: file.path,
      path: path.slice(topLevel.length),
      size: file.size,
      hashes: file.hashes,
    };
    this.writable.file(record.path, record.size);
    this.files += 1;
    this.bytes += file.size;
    this.nested ||= record.path.includes('/');
    await this.payload.append(record);
  }

  /** The one folder directly in data/, which a new top-level resource is named after. */
  singleTopFolder(): string {
    if (this.top.files)
      throw ServiceError.badRequest(
        'PresQT Error: Repository is not formatted correctly. Files exist at the top level.',
      );
    if (this.top.folders.size > 1)
      throw ServiceError.badRequest(
        'PresQT Error: Repository is not formatted correctly. Multiple directories exist at the top level.',
      );
    const [folder] = this.top.folders;
    if (folder === undefined)
      throw ServiceError.badRequest("PresQT Error: The bag's data/ folder holds no files.");
    return folder;
  }

  /** The bag's metadata tag file (a bag made by a download has one), merged with the payload's own. */
  async metadata(bagHasOne: boolean): Promise<FtsMetadata | null> {
    const bags = bagHasOne ? await this.readMetadata(FTS_METADATA_FILE) : null;
    if (!this.own) return bags;
    return bags ? mergeFtsMetadata(bags, this.own.actions, this.own.allKeywords) : this.own;
  }

  private async readMetadata(path: string): Promise<FtsMetadata | null> {
    return parseFtsMetadata((await this.source.readTagFile(path)).toString('utf8'));
  }
}
