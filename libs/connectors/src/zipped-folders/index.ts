export { flatFileName } from './flat-name';
export { PACKED_SUFFIX, packedZipName } from './packed-zip';
export { withZippedFolders } from './zipped-folders';
