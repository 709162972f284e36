export { createMultiHasher, hashFile, type MultiHasher } from './hash';
