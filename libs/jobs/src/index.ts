// the kinds' descriptions, for code that uses the store and the queues too
export * from '@app/job-kinds';
export * from './queues';
export * from './tickets';
export * from './job-record';
export * from './job-store';
export * from './jobs.module';
export * from './redis-unavailable';
export * from './redis-connections';
export * from './replica-confirmation';
export * from './redis.settings';
export * from './job.settings';
