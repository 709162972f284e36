export { PathLimits, ZipLimits } from './archive.settings';
export { pathLimitProblem, unsafePathReason } from './safe-path';
export { DEFAULT_ZIP_LIMITS, RATIO_FLOOR_BYTES, openZip, type ZipArchive, type ZipEntry } from './zip-reader';
export { completeZipEntries, openZipEntryAt, type PartialZipEntry } from './partial-zip';
