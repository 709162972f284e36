export * from './health/health.module';
export * from './metrics/metrics.module';
export * from './metrics/metric-definitions';
export * from './metrics/http-metrics';
export * from './logging/logging.module';
export * from './logging/request-id';
export * from './logging/request-logging';
export * from './logging/log.settings';
