export { BagZipWriter, SOFTWARE_AGENT, type BagZipWriterOptions, type CopyIntoEntry } from './bag-zip-writer';
export { findBagRoot } from './bag-root';
export { ZipWriter } from './zip-writer';
export {
  directoryBagSource,
  zipBagSource,
  MAX_TAG_FILE_BYTES,
  type BagEntry,
  type BagSource,
} from './source';
export {
  SUPPORTED_ALGORITHMS,
  decodeManifestPath,
  encodeManifestPath,
  type FetchItem,
  type TagField,
} from './tag-files';
export { validateBag, type BagValidation, type PayloadFile, type PayloadSink } from './validate';
export { readPayloadManifests } from './manifests';
