export * from './job-kinds';
export * from './queues';
export * from './tickets';
export * from './job-record';
export * from './job-store';
export * from './job-payloads';
export * from './jobs.module';
export * from './redis-unavailable';
