// What describes each kind of job, for the API, the worker and the CLI alike: types and plain data, nothing
// of Nest or Redis, so that the CLI bundles it without them.
export * from './job-kinds';
export * from './job-payloads';
export * from './job-status';
