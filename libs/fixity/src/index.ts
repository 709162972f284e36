export { createMultiHasher, type MultiHasher } from './hash';
export {
  copyHashing,
  hashFile,
  SEPARATE_SOURCE_DIGEST_FROM,
  ReadBack,
  setHashThreads,
  type ByteRange,
} from './hash-pool';
export { createStreamHasher, digestStream, type StreamHasher } from './threaded-hasher';
export { GIT_BLOB_SHA1 } from './algorithms';
export { HashingSettings } from './hashing.settings';
