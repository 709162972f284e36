export * from './fts-metadata';
export * from './metadata-file';
