export { filesystemConnector } from './filesystem.connector';
export type { FilesystemOptions } from './options';
