export * from './fts-metadata';
