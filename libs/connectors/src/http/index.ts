export * from './link-header';
export * from './retry-policy';
export * from './upstream';
export * from './upstream-text';
export * from './upstream.settings';
