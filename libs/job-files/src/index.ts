export * from './job-files';
export * from './job-files.module';
export * from './local-job-files';
export * from './run-dirs';
export * from './incoming-uploads';
export * from './job-files.settings';
export * from './file-body';
