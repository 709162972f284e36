export { pathLimitProblem, unsafePathReason, type PathLimits } from './safe-path';
export {
  DEFAULT_ZIP_LIMITS,
  RATIO_FLOOR_BYTES,
  openZip,
  type ZipArchive,
  type ZipEntry,
  type ZipLimits,
} from './zip-reader';
export { completeZipEntries, openZipEntryAt, type PartialZipEntry } from './partial-zip';
