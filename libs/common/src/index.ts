export * from './service-error';
export * from './project-root';
export * from './meter';
export * from './json-lines';
export * from './read-buffers';
export * from './local-file-stream';
export * from './regular-file';
