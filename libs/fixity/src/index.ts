export { createMultiHasher, type MultiHasher } from './hash';
export { hashFile, setHashThreads } from './hash-pool';
