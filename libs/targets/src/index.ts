export * from './target-entry';
export * from './load-targets-file';
export * from './targets-registry';
export * from './targets.module';
export * from './targets.settings';
