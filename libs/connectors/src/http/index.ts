export * from './link-header';
export * from './retry-policy';
export * from './upstream';
