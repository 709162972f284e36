export { createMultiHasher, type MultiHasher } from './hash';
export {
  copyFile,
  hashFile,
  SEPARATE_SOURCE_DIGEST_FROM,
  setHashThreads,
  type CopiedFile,
  type CopyTarget,
  type EntryTarget,
} from './hash-pool';
export type { ByteRange } from './hashing-worker';
export { createStreamHasher, digestStream, type StreamHasher } from './threaded-hasher';
export { GIT_BLOB_SHA1 } from './algorithms';
export { HashingSettings } from './hashing.settings';
