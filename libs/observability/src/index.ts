export * from './health/health.module';
