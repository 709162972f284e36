import { openZip, type ZipLimits } from '@app/archive';
import { findBagRoot, validateBag, zipBagSource, type BagSource } from '@app/bagit';
import { ServiceError } from '@app/common';
import type { UploadedBag } from '@app/jobs';
import {
  FTS_METADATA_FILE,
  INVALID_FTS_METADATA_FILE,
  MAX_FTS_METADATA_BYTES,
  mergeFtsMetadata,
  parseFtsMetadata,
  type FtsMetadata,
} from '@app/metadata';

/**
 * Everything the service checks of an uploaded package before the 202 (docs/behaviour.md#upload-packages): a safe zip within the
 * limits, one top-level folder holding a complete, valid bag, and for a new top-level resource exactly one
 * folder (and no files) in data/. Answers what the worker needs to write it.
 */
export async function inspectPackage(
  zipFile: string,
  limits: ZipLimits,
  newProject: boolean,
): Promise<UploadedBag> {
  const zip = await openZip(zipFile, limits);
  try {
    const root = findBagRoot(zip.entries);
    const source = zipBagSource(zip, root);
    const validation = await validateBag(source);
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
    const projectTitle = newProject ? singleTopFolder(validation.payload.map((file) => file.path)) : null;
    const topLevel = projectTitle === null ? '' : `${projectTitle}/`;
    let metadata: FtsMetadata | null = await bagMetadata(source);
    const payload: UploadedBag['payload'] = [];
    for (const file of validation.payload) {
      let path = file.path;
      if (path === `${topLevel}${FTS_METADATA_FILE}`) {
        // the resource's metadata file is merged when valid, and kept aside under another name when not
        const own =
          file.size <= MAX_FTS_METADATA_BYTES
            ? parseFtsMetadata((await source.readTagFile(`data/${path}`)).toString('utf8'))
            : null;
        if (own) {
          metadata = metadata ? mergeFtsMetadata(metadata, own.actions, own.allKeywords) : own;
          continue;
        }
        path = `${topLevel}${INVALID_FTS_METADATA_FILE}`;
      }
      payload.push({
        bagPath: file.path,
        path: path.slice(topLevel.length),
        size: file.size,
        hashes: file.hashes,
      });
    }
    return { root, projectTitle, payload, metadata };
  } finally {
    zip.close();
  }
}

/** The metadata file a bag made by a download carries at its root, as a tag file. */
async function bagMetadata(source: BagSource): Promise<FtsMetadata | null> {
  const present = (await source.list()).some((entry) => entry.path === FTS_METADATA_FILE);
  return present ? parseFtsMetadata((await source.readTagFile(FTS_METADATA_FILE)).toString('utf8')) : null;
}

/** The one folder directly in data/, which a new top-level resource is named after. */
function singleTopFolder(paths: string[]): string {
  const files = paths.filter((path) => !path.includes('/'));
  if (files.length > 0) {
    throw ServiceError.badRequest(
      'PresQT Error: Repository is not formatted correctly. Files exist at the top level.',
    );
  }
  const folders = new Set(paths.map((path) => path.slice(0, path.indexOf('/'))));
  if (folders.size > 1) {
    throw ServiceError.badRequest(
      'PresQT Error: Repository is not formatted correctly. Multiple directories exist at the top level.',
    );
  }
  const [folder] = folders;
  if (folder === undefined)
    throw ServiceError.badRequest("PresQT Error: The bag's data/ folder holds no files.");
  return folder;
}
