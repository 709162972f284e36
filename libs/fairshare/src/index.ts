export * from './fairshare-tests';
export * from './fairshare-evaluator';
export * from './fairshare.module';
export * from './fairshare.settings';
