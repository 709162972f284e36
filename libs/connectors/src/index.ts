export * from './connector';
export * from './capabilities';
export * from './connector-error';
export * from './catalogue';
export * from './metadata-file';
export * from './http';
export * from './zipped-folders';
export * from './option-rules';
